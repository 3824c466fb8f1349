#include "simulation/step_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "shared_data.h"
#include "simulation/fitted_llm.h"
#include "simulation/held_out.h"

namespace adaexplore {
namespace {

TreeStep Correct(MoveKind kind, StepCell cell, double speedup, std::optional<double> base,
                 BaseGap gap = BaseGap::kBest) {
  return {.kind = kind,
          .cell = cell,
          .verdict = StepVerdict::kCorrect,
          .speedup = speedup,
          .base = base,
          .gap = gap};
}

TreeStep Failed(MoveKind kind, StepCell cell, StepVerdict verdict) {
  return {.kind = kind, .cell = cell, .verdict = verdict};
}

// Every cell with known rates: small steps from a correct kernel 3 of 4 correct, each 1.5x its
// base; fresh kernels at the task's scale 2.
TreeSteps KnownTree() {
  TreeSteps tree{.name = "known", .fresh_scale = 2.0, .headroom = 1.5};
  for (int i = 0; i < 12; ++i) {
    tree.steps.push_back(
        Correct(MoveKind::kSmall, StepCell::kSmallFromCorrect, 3.0, 2.0, BaseGap::kBest));
  }
  for (int i = 0; i < 3; ++i) {
    tree.steps.push_back(
        Failed(MoveKind::kSmall, StepCell::kSmallFromCorrect, StepVerdict::kWrong));
  }
  tree.steps.push_back(Failed(MoveKind::kSmall, StepCell::kSmallFromCorrect, StepVerdict::kError));
  tree.steps.push_back(Failed(MoveKind::kSmall, StepCell::kSmallFromFailed, StepVerdict::kError));
  tree.steps.push_back(Correct(MoveKind::kLarge, StepCell::kLargeFresh, 2.0, std::nullopt));
  tree.steps.push_back(Failed(MoveKind::kLarge, StepCell::kLargeFresh, StepVerdict::kError));
  tree.steps.push_back(
      Correct(MoveKind::kLarge, StepCell::kLargeWithPool, 1.0, 2.0, BaseGap::kBest));
  return tree;
}

TEST(StepModelTest, RatesAndRatiosAreTheTreesOwn) {
  const Result<StepModel> model = StepModel::Fit({KnownTree()});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const VerdictRates& small = model->Rates(StepCell::kSmallFromCorrect);
  EXPECT_DOUBLE_EQ(small[0], 0.75);
  EXPECT_DOUBLE_EQ(small[1], 3.0 / 16);
  EXPECT_DOUBLE_EQ(small[2], 1.0 / 16);
  EXPECT_EQ(model->CellSteps(StepCell::kSmallFromCorrect), 16u);
  EXPECT_DOUBLE_EQ(model->Rates(StepCell::kSmallFromFailed)[2], 1);
  EXPECT_DOUBLE_EQ(model->Rates(StepCell::kLargeFresh)[0], 0.5);
  std::mt19937_64 random(3);
  EXPECT_DOUBLE_EQ(
      model->Ratios(MoveKind::kSmall, BaseGap::kBest, BaseProgress::kEarly).Draw(random), 1.5);
  // A gap with fewer than kMinRatios ratios draws from the kind's ratios of every gap.
  EXPECT_DOUBLE_EQ(
      model->Ratios(MoveKind::kSmall, BaseGap::kFar, BaseProgress::kAdvanced).Draw(random), 1.5);
  EXPECT_DOUBLE_EQ(
      model->Ratios(MoveKind::kLarge, BaseGap::kNear, BaseProgress::kEarly).Draw(random), 0.5);
  EXPECT_DOUBLE_EQ(model->FreshScales().Draw(random), 2);
  EXPECT_DOUBLE_EQ(model->FreshRatios().Draw(random), 1);
}

TEST(StepModelTest, ACellWithoutStepsCannotBeFitted) {
  TreeSteps tree = KnownTree();
  std::erase_if(tree.steps, [](const TreeStep& s) { return s.cell == StepCell::kSmallFromFailed; });
  const Result<StepModel> model = StepModel::Fit({tree});
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("small from a failed kernel"), std::string::npos);
  tree = KnownTree();
  tree.fresh_scale.reset();
  EXPECT_FALSE(StepModel::Fit({tree}).ok());
}

TEST(StepModelTest, FittedLlmDrawsForTheStepsSituation) {
  const Result<StepModel> model = StepModel::Fit({KnownTree()});
  ASSERT_TRUE(model.ok());
  std::mt19937_64 random(5);
  FittedLlm llm(*model, model->DrawTask(random), random);
  EXPECT_DOUBLE_EQ(llm.task().fresh_scale, 2);
  EXPECT_DOUBLE_EQ(llm.task().ceiling, 2 * 1.5);  // The tree's best 3.0 over its fresh scale.
  SearchTree tree;
  const int fresh =
      tree.Add(0, MoveKind::kLarge, {.compiled = true, .correct = true, .speedup = 2});
  int correct = 0;
  for (int i = 0; i < 400; ++i) {
    const NodeOutcome out = llm.Step(tree, {.parent = fresh, .kind = MoveKind::kSmall});
    if (out.correct) {
      ++correct;
      EXPECT_DOUBLE_EQ(out.speedup, 3);  // 1.5x its parent.
    }
  }
  EXPECT_NEAR(correct / 400.0, 0.75, 0.07);
  // A large step shown the fresh kernel builds on it; one shown nothing is a fresh kernel.
  for (int i = 0; i < 20; ++i) {
    const NodeOutcome pooled =
        llm.Step(tree, {.parent = 0, .kind = MoveKind::kLarge, .context = {fresh}});
    EXPECT_TRUE(pooled.correct);
    EXPECT_DOUBLE_EQ(pooled.speedup, 1);
    const NodeOutcome from_nothing = llm.Step(tree, {.parent = 0, .kind = MoveKind::kLarge});
    if (from_nothing.correct) {
      EXPECT_DOUBLE_EQ(from_nothing.speedup, 2);
    }
  }
}

TEST(HeldOutTest, FoldsNeedTrees) {
  HeldOutOptions options;
  options.folds = 3;
  EXPECT_EQ(CheckHeldOut({KnownTree(), KnownTree()}, options).status().code(),
            StatusCode::kInvalidArgument);
  options.folds = 2;
  const Result<HeldOutReport> same = CheckHeldOut({KnownTree(), KnownTree()}, options);
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_TRUE(same->KindRatesWithin());  // Two copies of one tree describe each other exactly.
  EXPECT_TRUE(same->QuantilesWithin());
  EXPECT_FALSE(HeldOutText(*same, options).empty());
}

// Issue 61's targets on the reference's ten trees, fold by fold (five trees fitted, five held
// out, then the other way): each move kind's verdict rates within 5 points, and the median speed
// change of small, large and fresh steps within 10%. Every quantile outside 10% of the held-out
// trees is one where the fitted trees' own quantile is too: with five trees a fold, the tails
// differ from task to task more than any fit to some of the trees can follow
// (docs/simulation.md).
TEST(HeldOutTest, ShowcaseTreesFitTheHeldOutHalf) {
  const auto folder = test_data::ShowcaseDirectory();
  if (!std::filesystem::exists(folder)) {
    GTEST_SKIP() << "no showcase data at " << folder;
  }
  Result<std::vector<TreeSteps>> trees = ReadTreeFolder(folder.string());
  ASSERT_TRUE(trees.ok());
  const HeldOutOptions options;
  const Result<HeldOutReport> report = CheckHeldOut(*trees, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->KindRatesWithin()) << HeldOutText(*report, options);
  int medians = 0;
  for (const QuantileCheck& q : report->quantiles) {
    // Where the model misses the held-out trees, so do the trees it was fitted on: the trees
    // differ there by more than 10% among themselves.
    if (!q.within) {
      EXPECT_GT(std::abs(q.fitted_on / q.real - 1), options.quantile_share)
          << "fold " << q.fold << " " << q.group << " q" << q.p;
    }
    if (q.p == 0.5) {
      ++medians;
      EXPECT_TRUE(q.within) << "fold " << q.fold << " " << q.group << "\n"
                            << HeldOutText(*report, options);
    }
  }
  EXPECT_EQ(medians, 6);  // Two folds of small, large and fresh.
}

}  // namespace
}  // namespace adaexplore
