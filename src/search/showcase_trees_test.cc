// The reference run's ten 200-step Level-2 trees (../shared/data/adaexplore-release/showcase;
// skipped when absent), replayed node by node into our SearchTree: every node's reward, every
// small step's context and every large step's pool must be what our policy computes from the
// tree as it stood; our UCB selection must pick the parent the reference expanded; and the
// global best must agree.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "search/policy.h"
#include "shared_data.h"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> TreeFiles() {
  std::vector<fs::path> files;
  if (!fs::exists(test_data::ShowcaseDirectory())) {
    return files;
  }
  for (const auto& entry : fs::directory_iterator(test_data::ShowcaseDirectory())) {
    if (entry.path().filename() != "index.json" && entry.path().extension() == ".json") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct Replay {
  int steps = 0;
  int small = 0, large = 0;
  int contexts_equal = 0;
  int pools_equal = 0;
  int pools_sampled = 0;  // More than five candidates: the reference drew five at random.
  int selections_equal = 0;
  int forced_large_violations = 0;
};

TEST(ShowcaseTreesTest, ContextsPoolsRewardsAndSelectionMatchTheReference) {
  const std::vector<fs::path> files = TreeFiles();
  if (files.empty()) {
    GTEST_SKIP() << "no showcase data at " << test_data::ShowcaseDirectory()
                 << " (set ADAEXPLORE_SHARED)";
  }
  const ExploreOptions options;  // Level 2: c = 0.3, c_e = 0.3.
  std::mt19937_64 random(1);
  Replay total;
  for (const fs::path& file : files) {
    std::ifstream in(file);
    const nlohmann::json tree_json = nlohmann::json::parse(in);
    SearchTree tree;
    int last_best = -1;
    for (const auto& step : tree_json["steps"]) {
      if (step["created_by"] == "dummy_root") {
        continue;
      }
      const int parent = step["parent_node_id"].get<int>();
      const bool large = step["created_by"] == "large_step";
      std::vector<int> context = step["context_node_ids"].get<std::vector<int>>();
      ++total.steps;
      total.selections_equal += Select(tree, options) == parent ? 1 : 0;
      const auto& siblings = tree.node(parent).children;
      const auto small_children = std::count_if(siblings.begin(), siblings.end(), [&](int id) {
        return tree.node(id).created_by == MoveKind::kSmall;
      });
      if ((parent == 0 || small_children >= options.small_step_limit) && !large) {
        ++total.forced_large_violations;
      }
      if (large) {
        ++total.large;
        ExploreOptions everything = options;
        everything.pool_size = 1000;
        std::vector<int> candidates = RepresentativePool(tree, parent, everything, random);
        if (candidates.size() <= static_cast<size_t>(options.pool_size)) {
          EXPECT_EQ(std::set<int>(candidates.begin(), candidates.end()),
                    std::set<int>(context.begin(), context.end()))
              << file.filename() << " node " << step["node_id"];
          total.pools_equal += std::set<int>(candidates.begin(), candidates.end()) ==
                                       std::set<int>(context.begin(), context.end())
                                   ? 1
                                   : 0;
        } else {
          ++total.pools_sampled;
          EXPECT_EQ(context.size(), static_cast<size_t>(options.pool_size));
          for (int id : context) {
            EXPECT_NE(std::find(candidates.begin(), candidates.end(), id), candidates.end());
          }
        }
      } else {
        ++total.small;
        std::vector<int> ours = SmallStepContext(tree, parent, options);
        EXPECT_EQ(ours, context) << file.filename() << " node " << step["node_id"];
        total.contexts_equal += ours == context ? 1 : 0;
      }
      const nlohmann::json& score = step["score"];
      const NodeOutcome outcome{.compiled = score["compiled"].get<bool>(),
                                .correct = score["correct"].get<bool>(),
                                .speedup = score["fast_p"].get<double>()};
      const int id = tree.Add(parent, large ? MoveKind::kLarge : MoveKind::kSmall, outcome);
      ASSERT_EQ(id, step["node_id"].get<int>()) << file.filename();
      EXPECT_NEAR(tree.node(id).reward, step["max_reward"].get<double>(), 1e-9)
          << file.filename() << " node " << id;
      last_best = step["global_best_node_id"].get<int>();
    }
    ASSERT_TRUE(tree.GlobalBest().has_value());
    EXPECT_EQ(tree.node(*tree.GlobalBest()).outcome.speedup, tree.node(last_best).outcome.speedup)
        << file.filename();
  }
  EXPECT_GT(total.steps, 1900);  // Ten trees of up to 200 steps.
  EXPECT_EQ(total.forced_large_violations, 0);
  EXPECT_EQ(total.contexts_equal, total.small);
  EXPECT_EQ(total.pools_equal + total.pools_sampled, total.large);
  EXPECT_EQ(total.selections_equal, total.steps);
  std::printf(
      "showcase: %d steps (%d small, %d large); contexts equal %d/%d; pools equal %d, "
      "sampled from more than five %d; our selection picked the reference's parent "
      "%d/%d times\n",
      total.steps, total.small, total.large, total.contexts_equal, total.small, total.pools_equal,
      total.pools_sampled, total.selections_equal, total.steps);
}

}  // namespace
}  // namespace adaexplore
