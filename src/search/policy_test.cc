#include "search/policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace adaexplore {
namespace {

constexpr NodeOutcome kBroken{.compiled = false};
constexpr NodeOutcome kWrong{.compiled = true, .correct = false};
NodeOutcome Fast(double speedup) { return {.compiled = true, .correct = true, .speedup = speedup}; }

TEST(PolicyTest, AnEmptyTreeExpandsTheRoot) {
  SearchTree tree;
  EXPECT_EQ(Select(tree, {}), 0);
}

// root ── a (0.4) ─┬─ a1 small (0.05)
//                  └─ a2 small (1.6)
//      └─ b (0.05)
class HandTree : public ::testing::Test {
 protected:
  void SetUp() override {
    a = tree.Add(0, MoveKind::kLarge, Fast(0.1));
    a1 = tree.Add(a, MoveKind::kSmall, kWrong);
    a2 = tree.Add(a, MoveKind::kSmall, Fast(10));
    b = tree.Add(0, MoveKind::kLarge, kWrong);
  }
  SearchTree tree;
  int a = 0, a1 = 0, a2 = 0, b = 0;
};

TEST_F(HandTree, SelectionDescendsByUcbAndStopsWhereExpandingWins) {
  // At the root (N = 4): Q(a) = 2.05 / 3 = 0.6833, UCB(a) = 0.6833 + 0.3 sqrt(ln 4 / 3) = 0.8872;
  // UCB(b) = 0.05 + 0.3 sqrt(ln 4) = 0.4032; expand here = 0.6833 + 0.3 sqrt(ln 4 / 4) = 0.8599.
  // So descend to a (N = 3): UCB(a2) = 1.6 + 0.3 sqrt(ln 3) = 1.9144 beats expanding a
  // (1.6 + 0.3 sqrt(ln 3 / 4) = 1.7572): descend to a2, a leaf.
  EXPECT_NEAR(NodeValue(tree.node(a), {}), 2.05 / 3, 1e-12);
  EXPECT_EQ(Select(tree, {}), a2);
  // With c_e ten times c, expanding the root (0.6833 + 3 sqrt(ln 4 / 4) = 2.449) wins at once.
  EXPECT_EQ(Select(tree, {.expand_ratio = 10}), 0);
  // Q as the max reward (alpha = 1): the same path.
  EXPECT_EQ(Select(tree, {.alpha = 1}), a2);
}

TEST_F(HandTree, MovesAreForcedAtTheRootAndUnderSaturatedNodes) {
  std::mt19937_64 random(3);
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(ChooseMove(tree, 0, {.p_large = 0}, random), MoveKind::kLarge);
    EXPECT_EQ(ChooseMove(tree, a, {.p_large = 0}, random), MoveKind::kLarge);  // Two small kids.
    EXPECT_EQ(ChooseMove(tree, b, {.p_large = 0}, random), MoveKind::kSmall);
    EXPECT_EQ(ChooseMove(tree, b, {.p_large = 1}, random), MoveKind::kLarge);
  }
  int large = 0;
  for (int i = 0; i < 10000; ++i) {
    large += ChooseMove(tree, b, {}, random) == MoveKind::kLarge ? 1 : 0;
  }
  EXPECT_NEAR(large / 10000.0, 0.2, 0.02);
}

TEST_F(HandTree, StepsInFlightAreVirtualLossesThatSpreadTheNextSelection) {
  // One small step on a2 in flight: a virtual visit of reward 0 on a2, a and the root. At the
  // root (N' = 5): Q'(a) = 2.05 / 4, UCB(a) = 0.5125 + 0.3 sqrt(ln 5 / 4) = 0.7028 equals
  // expanding the root (k = 2), which does not beat it; at a (N' = 4): UCB(a2) = 1.6 / 2 +
  // 0.3 sqrt(ln 4 / 2) = 1.0498 beats expanding a with its pending child (k = 3: 0.9177).
  const std::vector<PendingStep> one = {{.parent = a2, .kind = MoveKind::kSmall}};
  EXPECT_NEAR(NodeValue(tree.node(a), {}, 1), 2.05 / 4, 1e-12);
  EXPECT_EQ(Select(tree, {}, one), a2);
  // A second one there: Q'(a) = 2.05 / 5 = 0.41, UCB(a) = 0.41 + 0.3 sqrt(ln 6 / 5) = 0.5896,
  // below expanding the root (0.41 + 0.3 sqrt(ln 6 / 4) = 0.6108): the next step goes elsewhere.
  const std::vector<PendingStep> two = {one[0], one[0]};
  EXPECT_EQ(Select(tree, {}, two), 0);
  EXPECT_EQ(Select(tree, {}, {}), a2);  // None in flight: the reference's choice.
}

TEST_F(HandTree, SmallStepsInFlightCountTowardTheSmallStepLimit) {
  std::mt19937_64 random(5);
  const std::vector<PendingStep> one_small = {{.parent = b, .kind = MoveKind::kSmall}};
  const std::vector<PendingStep> two_small = {one_small[0], one_small[0]};
  const std::vector<PendingStep> large = {{.parent = b, .kind = MoveKind::kLarge},
                                          {.parent = b, .kind = MoveKind::kLarge}};
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(ChooseMove(tree, b, {.p_large = 0}, random, one_small), MoveKind::kSmall);
    EXPECT_EQ(ChooseMove(tree, b, {.p_large = 0}, random, two_small), MoveKind::kLarge);
    EXPECT_EQ(ChooseMove(tree, b, {.p_large = 0}, random, large), MoveKind::kSmall);
  }
}

TEST(PolicyTest, StepsInFlightFromAnEmptyTreeAreAllLargeStepsFromTheRoot) {
  SearchTree tree;
  std::mt19937_64 random(1);
  std::vector<PendingStep> pending;
  for (int i = 0; i < 4; ++i) {
    const StepPlan plan = PlanStep(tree, SearchMethod::kAdaExplore, {}, random, pending);
    EXPECT_EQ(plan.parent, 0);
    EXPECT_EQ(plan.kind, MoveKind::kLarge);
    pending.push_back({.parent = plan.parent, .kind = plan.kind});
  }
}

TEST(PolicyTest, SmallStepContextIsThePathSinceTheLastLargeStepLastFive) {
  SearchTree tree;
  const int large = tree.Add(0, MoveKind::kLarge, Fast(1));
  std::vector<int> chain = {large};
  for (int i = 0; i < 6; ++i) {
    chain.push_back(tree.Add(chain.back(), MoveKind::kSmall, i % 2 ? kWrong : Fast(1.5)));
  }
  EXPECT_EQ(SmallStepContext(tree, chain[2], {}), (std::vector<int>{chain[0], chain[1], chain[2]}));
  EXPECT_EQ(SmallStepContext(tree, chain[6], {}),
            (std::vector<int>{chain[2], chain[3], chain[4], chain[5], chain[6]}));
  EXPECT_EQ(SmallStepContext(tree, large, {}), (std::vector<int>{large}));
  const int jump = tree.Add(chain[3], MoveKind::kLarge, kBroken);
  const int after = tree.Add(jump, MoveKind::kSmall, kWrong);
  EXPECT_EQ(SmallStepContext(tree, after, {}), (std::vector<int>{jump, after}));
  EXPECT_EQ(SmallStepContext(tree, chain[6], {.memory_window = 2}),
            (std::vector<int>{chain[5], chain[6]}));
}

// root ── L1 (1.0) ── s1 small (2.0) ─┬─ s2 small (wrong)
//                                      └─ L2 large (1.5) ── t1 small (3.0) ── L3 large (wrong)
TEST(PolicyTest, PoolTakesTheBestCorrectKernelOfEachComponentOnThePath) {
  SearchTree tree;
  const int l1 = tree.Add(0, MoveKind::kLarge, Fast(1.0));
  const int s1 = tree.Add(l1, MoveKind::kSmall, Fast(2.0));
  const int s2 = tree.Add(s1, MoveKind::kSmall, kWrong);
  const int l2 = tree.Add(s1, MoveKind::kLarge, Fast(1.5));
  const int t1 = tree.Add(l2, MoveKind::kSmall, Fast(3.0));
  const int l3 = tree.Add(t1, MoveKind::kLarge, kWrong);
  std::mt19937_64 random(5);
  EXPECT_EQ(SmallStepComponent(tree, l1), (std::vector<int>{l1, s1, s2}));  // Not L2's part.
  EXPECT_EQ(RepresentativePool(tree, l3, {}, random), (std::vector<int>{s1, t1}));
  EXPECT_EQ(RepresentativePool(tree, s2, {}, random), (std::vector<int>{s1}));
  EXPECT_TRUE(RepresentativePool(tree, 0, {}, random).empty());  // From the root: nothing.
  // Never padded; sampled down when over the limit.
  std::vector<int> one = RepresentativePool(tree, l3, {.pool_size = 1}, random);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_TRUE(one[0] == s1 || one[0] == t1);
}

TEST(PolicyTest, BaselinesPlanTheirFixedMoves) {
  SearchTree tree;
  std::mt19937_64 random(9);
  StepPlan first = PlanStep(tree, SearchMethod::kIterativeRefinement, {}, random);
  EXPECT_EQ(first.parent, 0);
  EXPECT_EQ(first.kind, MoveKind::kLarge);
  int last = tree.Add(0, MoveKind::kLarge, Fast(1));
  for (int i = 0; i < 6; ++i) {
    StepPlan plan = PlanStep(tree, SearchMethod::kIterativeRefinement, {}, random);
    EXPECT_EQ(plan.parent, last);
    EXPECT_EQ(plan.kind, MoveKind::kSmall);
    EXPECT_EQ(plan.context.back(), last);
    EXPECT_EQ(plan.context.size(), std::min<size_t>(5, static_cast<size_t>(last)));
    last = tree.Add(plan.parent, plan.kind, i % 2 ? kWrong : Fast(1.2));
  }
  for (int i = 0; i < 5; ++i) {
    StepPlan plan = PlanStep(tree, SearchMethod::kParallelSampling, {}, random);
    EXPECT_EQ(plan.parent, 0);
    EXPECT_EQ(plan.kind, MoveKind::kLarge);
    EXPECT_TRUE(plan.context.empty());
  }
  EXPECT_EQ(SearchMethodFromName("ir"), SearchMethod::kIterativeRefinement);
}

TEST(PolicyTest, IterativeRefinementSkipsStepsWithoutAKernel) {
  SearchTree tree;
  std::mt19937_64 random(3);
  const NodeOutcome empty{.has_kernel = false};
  // The first proposal came back without code: propose again rather than edit nothing.
  tree.Add(0, MoveKind::kLarge, empty);
  StepPlan again = PlanStep(tree, SearchMethod::kIterativeRefinement, {}, random);
  EXPECT_EQ(again.parent, 0);
  EXPECT_EQ(again.kind, MoveKind::kLarge);
  const int kernel = tree.Add(0, MoveKind::kLarge, Fast(1));
  // A small step whose edits gave nothing: the next one edits the newest kernel again, and the
  // empty step is not in the working memory.
  tree.Add(kernel, MoveKind::kSmall, empty);
  StepPlan next = PlanStep(tree, SearchMethod::kIterativeRefinement, {}, random);
  EXPECT_EQ(next.parent, kernel);
  EXPECT_EQ(next.kind, MoveKind::kSmall);
  EXPECT_EQ(next.context, std::vector<int>{kernel});
  EXPECT_FALSE(SearchMethodFromName("mcts").has_value());
}

TEST(PolicyTest, MethodNamesRoundTripAndIrsIsIr) {
  for (SearchMethod method : AllSearchMethods()) {
    EXPECT_EQ(SearchMethodFromName(SearchMethodName(method)), method);
  }
  EXPECT_EQ(SearchMethodFromName("irs"), SearchMethod::kIterativeRefinement);
  EXPECT_EQ(SearchMethodNames(), "adaexplore, ps, ir, irl, irb, irle");
}

// Six kernels, oldest first: 1.5x, wrong, 3x, no kernel, compile error, 2x.
class PoolTree : public ::testing::Test {
 protected:
  void SetUp() override {
    fast15 = tree.Add(0, MoveKind::kLarge, Fast(1.5));
    wrong = tree.Add(0, MoveKind::kLarge, kWrong);
    fast3 = tree.Add(0, MoveKind::kLarge, Fast(3));
    tree.Add(0, MoveKind::kLarge, NodeOutcome{.has_kernel = false});
    broken = tree.Add(0, MoveKind::kLarge, kBroken);
    fast2 = tree.Add(0, MoveKind::kLarge, Fast(2));
  }
  SearchTree tree;
  std::mt19937_64 random{5};
  int fast15 = 0, wrong = 0, fast3 = 0, broken = 0, fast2 = 0;
};

TEST_F(PoolTree, RecentPoolShowsTheNewestKernelsWhateverTheirVerdict) {
  StepPlan plan = PlanStep(tree, SearchMethod::kRecentPool, {.pool_size = 3}, random);
  EXPECT_EQ(plan.parent, 0);
  EXPECT_EQ(plan.kind, MoveKind::kLarge);
  EXPECT_EQ(plan.context, (std::vector<int>{fast3, broken, fast2}));
  EXPECT_TRUE(PlanStep(SearchTree(), SearchMethod::kRecentPool, {}, random).context.empty());
}

TEST_F(PoolTree, BestPoolShowsTheBestKernelsBestFirst) {
  StepPlan plan = PlanStep(tree, SearchMethod::kBestPool, {.pool_size = 4}, random);
  EXPECT_EQ(plan.parent, 0);
  EXPECT_EQ(plan.kind, MoveKind::kLarge);
  EXPECT_EQ(plan.context, (std::vector<int>{fast3, fast2, fast15, wrong}));
  // Fewer kernels than the pool: all of them, the failures last.
  plan = PlanStep(tree, SearchMethod::kBestPool, {.pool_size = 10}, random);
  EXPECT_EQ(plan.context, (std::vector<int>{fast3, fast2, fast15, wrong, broken}));
}

TEST_F(PoolTree, RecentElitePoolAddsCorrectKernelsOutsideTheRecentOnes) {
  // pool 4: the newest 2 (broken, 2x), then 2 of the correct kernels not among them.
  StepPlan plan = PlanStep(tree, SearchMethod::kRecentElitePool, {.pool_size = 4}, random);
  EXPECT_EQ(plan.kind, MoveKind::kLarge);
  ASSERT_EQ(plan.context.size(), 4u);
  EXPECT_EQ(plan.context[0], broken);
  EXPECT_EQ(plan.context[1], fast2);
  std::vector<int> elite(plan.context.begin() + 2, plan.context.end());
  std::sort(elite.begin(), elite.end());
  EXPECT_EQ(elite, (std::vector<int>{fast15, fast3}));  // The only two candidates.
  // pool 3: one recent (2x), two drawn from 1.5x and 3x; never a failure, never a repeat.
  plan = PlanStep(tree, SearchMethod::kRecentElitePool, {.pool_size = 3}, random);
  EXPECT_EQ(plan.context.front(), fast2);
  EXPECT_EQ(plan.context.size(), 3u);
}

TEST_F(PoolTree, RecentElitePoolFavoursFastKernelsAsTheTemperatureFalls) {
  // pool 2: one recent kernel (2x) and one draw between 1.5x and 3x;
  // exp(3) / (exp(3) + exp(1.5)) = 0.82 at temperature 1.
  auto share_of_fast3 = [&](double temperature) {
    int hits = 0;
    for (int i = 0; i < 2000; ++i) {
      StepPlan plan = PlanStep(tree, SearchMethod::kRecentElitePool,
                               {.pool_size = 2, .softmax_temperature = temperature}, random);
      EXPECT_EQ(plan.context.size(), 2u);
      hits += plan.context.back() == fast3 ? 1 : 0;
    }
    return hits / 2000.0;
  };
  EXPECT_NEAR(share_of_fast3(1.0), 0.82, 0.04);
  EXPECT_GT(share_of_fast3(0.1), 0.99);
  EXPECT_NEAR(share_of_fast3(1000.0), 0.5, 0.05);
  // Nearly zero: the fastest first, then the next fastest, each weight against the best of
  // those left (against the first's, the second draw's weights would all be 0).
  StepPlan plan = PlanStep(tree, SearchMethod::kRecentElitePool,
                           {.pool_size = 4, .softmax_temperature = 0.001}, random);
  EXPECT_EQ(plan.context, (std::vector<int>{broken, fast2, fast3, fast15}));
}

TEST_F(HandTree, AdaExplorePlansTheSelectedNodeAndCanSwitchMoves) {
  std::mt19937_64 random(11);
  StepPlan plan = PlanStep(tree, SearchMethod::kAdaExplore, {.p_large = 0}, random);
  EXPECT_EQ(plan.parent, a2);
  EXPECT_EQ(plan.kind, MoveKind::kSmall);
  EXPECT_EQ(plan.context, (std::vector<int>{a, a2}));
  StepPlan other = OtherMove(tree, plan, SearchMethod::kAdaExplore, {}, random);
  EXPECT_EQ(other.parent, a2);
  EXPECT_EQ(other.kind, MoveKind::kLarge);
  EXPECT_EQ(other.context, (std::vector<int>{a2}));  // a's component's best correct kernel.
}

}  // namespace
}  // namespace adaexplore
