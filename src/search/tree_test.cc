#include "search/tree.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

TEST(TreeTest, RewardFollowsTheReferenceMap) {
  EXPECT_DOUBLE_EQ(Reward({.compiled = false}), 0.0);
  EXPECT_DOUBLE_EQ(Reward({.compiled = true, .correct = false, .speedup = 5}), 0.05);
  // Correct on every trial, then timed out while timed: the slowest correct kernel's reward.
  EXPECT_DOUBLE_EQ(Reward({.compiled = true, .correct = false, .correct_untimed = true}), 0.4);
  EXPECT_DOUBLE_EQ(Reward({.compiled = true, .correct = true, .speedup = 0.01}), 0.4);
  EXPECT_DOUBLE_EQ(Reward({.compiled = true, .correct = true, .speedup = 0.1}), 0.4);
  EXPECT_DOUBLE_EQ(Reward({.compiled = true, .correct = true, .speedup = 10}), 1.6);
  EXPECT_DOUBLE_EQ(Reward({.compiled = true, .correct = true, .speedup = 912}), 1.6);
  // s = 1: 0.4 + 1.2 * 0.9 / 9.9.
  EXPECT_NEAR(Reward({.compiled = true, .correct = true, .speedup = 1}), 0.4 + 1.2 * 0.9 / 9.9,
              1e-15);
}

TEST(TreeTest, TheSolObjectiveRewardsTheFractionOfTheSpeedOfLight) {
  const RewardOptions sol{.objective = Objective::kSol};
  // Half the speed of light: 0.4 + 1.2 * 0.5, whatever the speedup.
  EXPECT_DOUBLE_EQ(
      Reward({.compiled = true, .correct = true, .speedup = 10, .sol_fraction = 0.5}, sol), 1.0);
  EXPECT_DOUBLE_EQ(
      Reward({.compiled = true, .correct = true, .speedup = 1, .sol_fraction = 1.3}, sol), 1.6);
  EXPECT_DOUBLE_EQ(
      Reward({.compiled = true, .correct = true, .speedup = 1, .sol_fraction = 0}, sol), 0.4);
  // Without a fraction (the CPU) the speedup's reward; failures as always.
  EXPECT_DOUBLE_EQ(Reward({.compiled = true, .correct = true, .speedup = 10}, sol), 1.6);
  EXPECT_DOUBLE_EQ(Reward({.compiled = true, .correct = false, .sol_fraction = 0.9}, sol), 0.05);
  // The paper's objective ignores the fraction.
  EXPECT_DOUBLE_EQ(Reward({.compiled = true, .correct = true, .speedup = 10, .sol_fraction = 0.1}),
                   1.6);
  EXPECT_EQ(EnumFromName<Objective>(EnumName(Objective::kSol)), Objective::kSol);
  EXPECT_FALSE(EnumFromName<Objective>("latency"));
}

TEST(TreeTest, BackPropagationUpdatesEveryAncestor) {
  SearchTree tree;
  const int a = tree.Add(0, MoveKind::kLarge, {.compiled = true, .correct = true, .speedup = 10});
  const int b = tree.Add(a, MoveKind::kSmall, {.compiled = true, .correct = false});
  const int c = tree.Add(b, MoveKind::kSmall, {.compiled = false});
  const int d = tree.Add(0, MoveKind::kLarge, {.compiled = true, .correct = false});
  EXPECT_EQ(tree.size(), 5);
  // Root: four kernels, W = 1.6 + 0.05 + 0 + 0.05, M = 1.6.
  EXPECT_EQ(tree.root().visits, 4);
  EXPECT_NEAR(tree.root().total_reward, 1.7, 1e-12);
  EXPECT_DOUBLE_EQ(tree.root().max_reward, 1.6);
  EXPECT_EQ(tree.node(a).visits, 3);
  EXPECT_NEAR(tree.node(a).total_reward, 1.65, 1e-12);
  EXPECT_EQ(tree.node(b).visits, 2);
  EXPECT_DOUBLE_EQ(tree.node(b).max_reward, 0.05);
  EXPECT_EQ(tree.node(c).visits, 1);
  EXPECT_DOUBLE_EQ(tree.node(c).max_reward, 0.0);
  EXPECT_EQ(tree.node(d).parent, 0);
  EXPECT_EQ(tree.root().children, (std::vector<int>{a, d}));
}

TEST(TreeTest, GlobalBestIsLexicographicAndEarliestOnTies) {
  SearchTree tree;
  EXPECT_FALSE(tree.GlobalBest().has_value());
  const int broken = tree.Add(0, MoveKind::kLarge, {.compiled = false});
  EXPECT_EQ(tree.GlobalBest(), broken);
  const int wrong =
      tree.Add(0, MoveKind::kLarge, {.compiled = true, .correct = false, .speedup = 50});
  EXPECT_EQ(tree.GlobalBest(), wrong);
  const int slow =
      tree.Add(0, MoveKind::kLarge, {.compiled = true, .correct = true, .speedup = 0.5});
  EXPECT_EQ(tree.GlobalBest(), slow);
  const int fast =
      tree.Add(slow, MoveKind::kSmall, {.compiled = true, .correct = true, .speedup = 3});
  tree.Add(slow, MoveKind::kSmall, {.compiled = true, .correct = true, .speedup = 3});
  EXPECT_EQ(tree.GlobalBest(), fast);
}

TEST(TreeTest, AKernelCorrectAtTheTasksSizesOnlyRanksBelowEveryOtherCorrectOne) {
  SearchTree tree;
  const int wrong = tree.Add(0, MoveKind::kLarge, {.compiled = true, .correct = false});
  const int baked = tree.Add(0, MoveKind::kLarge,
                             {.compiled = true, .correct = true, .sizes_only = true, .speedup = 5});
  EXPECT_EQ(tree.GlobalBest(), baked);  // Above a wrong kernel: the answer while none is better.
  EXPECT_TRUE(SearchTree::Better(tree.node(baked).outcome, tree.node(wrong).outcome));
  // Its reward is its speedup's: the search may still improve from it.
  EXPECT_DOUBLE_EQ(tree.node(baked).reward,
                   Reward({.compiled = true, .correct = true, .speedup = 5}));
  const int slow =
      tree.Add(baked, MoveKind::kSmall, {.compiled = true, .correct = true, .speedup = 1.1});
  EXPECT_EQ(tree.GlobalBest(), slow);
}

}  // namespace
}  // namespace adaexplore
