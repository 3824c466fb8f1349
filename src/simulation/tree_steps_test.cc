#include "simulation/tree_steps.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "shared_data.h"
#include "sys/fs.h"

namespace adaexplore {
namespace {

nlohmann::json Step(int id, std::optional<int> parent, const std::string& by,
                    std::vector<int> context, bool correct, double speedup,
                    const std::string& error = "") {
  nlohmann::json step = {{"step", id},
                         {"node_id", id},
                         {"parent_node_id", parent ? nlohmann::json(*parent) : nlohmann::json()},
                         {"created_by", by},
                         {"context_node_ids", context},
                         {"score",
                          {{"compiled", error != "compile failed"},
                           {"correct", correct},
                           {"fast_p", correct ? speedup : 0.0}}}};
  if (!error.empty()) {
    step["error"] = error;
  }
  return step;
}

// A tree of every situation: a fresh kernel, small steps from it (faster, wrong, broken), a small
// step from the broken one, a large step with a pool and one without.
nlohmann::json SmallTree() {
  return {{"steps",
           {Step(0, std::nullopt, "dummy_root", {}, false, 0, "compile failed"),
            Step(1, 0, "large_step", {}, true, 2.0), Step(2, 1, "small_step", {1}, true, 2.4),
            Step(3, 1, "small_step", {1}, false, 0, "incorrect output"),
            Step(4, 1, "small_step", {1}, false, 0, "compile failed"),
            Step(5, 4, "small_step", {1, 4}, true, 2.1), Step(6, 2, "large_step", {2}, true, 3.0),
            Step(7, 0, "large_step", {}, false, 0, "RuntimeError: out of resources"),
            Step(8, 0, "large_step", {}, true, 4.0)}}};
}

Result<TreeSteps> ReadJson(const nlohmann::json& json, const std::string& name = "tree.json") {
  Result<TempDir> dir = TempDir::Create("adx-tree-steps-");
  EXPECT_TRUE(dir.ok());
  const std::string path = dir->path() + "/" + name;
  EXPECT_TRUE(WriteFileAtomic(path, json.dump()).ok());
  return ReadTreeSteps(path);
}

TEST(TreeStepsTest, ClassifiesEverySituation) {
  const Result<TreeSteps> tree = ReadJson(SmallTree());
  ASSERT_TRUE(tree.ok()) << tree.status().ToString();
  EXPECT_EQ(tree->name, "tree");
  ASSERT_EQ(tree->steps.size(), 8u);
  const auto& s = tree->steps;
  EXPECT_EQ(s[0].cell, StepCell::kLargeFresh);
  EXPECT_FALSE(s[0].base.has_value());
  EXPECT_EQ(s[1].cell, StepCell::kSmallFromCorrect);
  EXPECT_EQ(s[1].base, 2.0);
  EXPECT_EQ(s[1].gap, BaseGap::kBest);
  EXPECT_EQ(s[1].verdict, StepVerdict::kCorrect);
  EXPECT_EQ(s[1].speedup, 2.4);
  EXPECT_EQ(s[2].verdict, StepVerdict::kWrong);
  EXPECT_EQ(s[2].gap, BaseGap::kNear);  // 2.0 of the best 2.4.
  EXPECT_EQ(s[3].verdict, StepVerdict::kError);
  // From a failed kernel: the base is the best correct kernel it was shown.
  EXPECT_EQ(s[4].cell, StepCell::kSmallFromFailed);
  EXPECT_EQ(s[4].base, 2.0);
  EXPECT_EQ(s[5].cell, StepCell::kLargeWithPool);
  EXPECT_EQ(s[5].base, 2.4);
  EXPECT_EQ(s[6].cell, StepCell::kLargeFresh);
  EXPECT_EQ(s[6].verdict, StepVerdict::kError);  // A run error, not wrong outputs.
  EXPECT_EQ(s[7].cell, StepCell::kLargeFresh);
  EXPECT_EQ(tree->fresh_scale, 3.0);               // The median of the fresh kernels 2.0 and 4.0.
  EXPECT_DOUBLE_EQ(*tree->headroom, 4.0 / 3.0);    // Its best, 4.0, over that.
  EXPECT_EQ(s[5].progress, BaseProgress::kEarly);  // 2.4 is below twice the fresh scale.
}

TEST(TreeStepsTest, GapAgainstTheBestSoFar) {
  EXPECT_EQ(GapOf(5, 5), BaseGap::kBest);
  EXPECT_EQ(GapOf(4, 5), BaseGap::kNear);
  EXPECT_EQ(GapOf(3.9, 5), BaseGap::kFar);
  EXPECT_EQ(GapOf(1, 0), BaseGap::kBest);  // Nothing correct yet.
}

TEST(TreeStepsTest, ProgressAgainstTheFreshScale) {
  EXPECT_EQ(ProgressOf(1.9, 1), BaseProgress::kEarly);
  EXPECT_EQ(ProgressOf(2, 1), BaseProgress::kAdvanced);
}

TEST(TreeStepsTest, BrokenTreesAreErrorsNamingTheStep) {
  nlohmann::json tree = SmallTree();
  tree["steps"][3]["parent_node_id"] = 42;
  Result<TreeSteps> read = ReadJson(tree);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("step 3: its parent is not an earlier step"),
            std::string::npos)
      << read.status().ToString();

  tree = SmallTree();
  tree["steps"][2]["score"]["fast_p"] = -1;
  read = ReadJson(tree);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("positive speedup"), std::string::npos);

  tree = SmallTree();
  tree["steps"][2].erase("score");
  EXPECT_EQ(ReadJson(tree).status().code(), StatusCode::kParseError);
  EXPECT_EQ(ReadJson({{"steps", nlohmann::json::array()}}).status().code(),
            StatusCode::kParseError);
  EXPECT_EQ(ReadJson({{"label", "no steps"}}).status().code(), StatusCode::kParseError);
}

TEST(TreeStepsTest, FolderReadsEveryTreeButTheIndex) {
  Result<TempDir> dir = TempDir::Create("adx-tree-folder-");
  ASSERT_TRUE(dir.ok());
  EXPECT_EQ(ReadTreeFolder(dir->path()).status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(WriteFileAtomic(dir->path() + "/b.json", SmallTree().dump()).ok());
  ASSERT_TRUE(WriteFileAtomic(dir->path() + "/a.json", SmallTree().dump()).ok());
  ASSERT_TRUE(WriteFileAtomic(dir->path() + "/index.json", "{}").ok());
  Result<std::vector<TreeSteps>> trees = ReadTreeFolder(dir->path());
  ASSERT_TRUE(trees.ok()) << trees.status().ToString();
  ASSERT_EQ(trees->size(), 2u);
  EXPECT_EQ((*trees)[0].name, "a");
  ASSERT_TRUE(WriteFileAtomic(dir->path() + "/c.json", "{not json").ok());
  EXPECT_EQ(ReadTreeFolder(dir->path()).status().code(), StatusCode::kParseError);
  EXPECT_FALSE(ReadTreeFolder(dir->path() + "/missing").ok());
}

// The reference's ten trees read as issue 61 counts them: 1,964 steps; small steps fail 25.9% of
// the time and large 33.6%; 3.5% of steps give wrong outputs.
TEST(TreeStepsTest, ShowcaseTreesHaveTheReleasesCounts) {
  const auto folder = test_data::ShowcaseDirectory();
  if (!std::filesystem::exists(folder)) {
    GTEST_SKIP() << "no showcase data at " << folder;
  }
  Result<std::vector<TreeSteps>> trees = ReadTreeFolder(folder.string());
  ASSERT_TRUE(trees.ok()) << trees.status().ToString();
  ASSERT_EQ(trees->size(), 10u);
  std::map<MoveKind, std::array<int, 3>> counts;
  int steps = 0;
  for (const TreeSteps& tree : *trees) {
    EXPECT_TRUE(tree.fresh_scale.has_value()) << tree.name;
    for (const TreeStep& step : tree.steps) {
      ++counts[step.kind][static_cast<size_t>(step.verdict)];
      ++steps;
    }
  }
  EXPECT_EQ(steps, 1964);
  const auto failed = [&](MoveKind kind) {
    const auto& c = counts[kind];
    return static_cast<double>(c[1] + c[2]) / (c[0] + c[1] + c[2]);
  };
  EXPECT_NEAR(failed(MoveKind::kSmall), 0.259, 0.0005);
  EXPECT_NEAR(failed(MoveKind::kLarge), 0.336, 0.0005);
  EXPECT_NEAR((counts[MoveKind::kSmall][1] + counts[MoveKind::kLarge][1]) / 1964.0, 0.035, 0.0005);
}

}  // namespace
}  // namespace adaexplore
