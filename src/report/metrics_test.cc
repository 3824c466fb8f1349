#include "report/metrics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace adaexplore {
namespace {

TaskOutcome Correct(std::string name, double speedup) {
  return {.task = std::move(name),
          .correct = true,
          .speedup = speedup,
          .steps = 1,
          .compiled_steps = 1,
          .correct_steps = 1};
}

// Five tasks, by hand: speedups 0.5, 1.2 (exactly), 2.0 (exactly), 25 (capped at 10), and one
// wrong (counts 0).
TEST(MetricsTest, TheReferenceDefinitionsByHand) {
  std::vector<TaskOutcome> tasks = {
      Correct("a", 0.5),
      Correct("b", 1.2),
      Correct("c", 2.0),
      Correct("d", 25.0),
      {.task = "e", .correct = false, .steps = 4, .compiled_steps = 2}};
  const SuiteMetrics m = ComputeMetrics(tasks);
  EXPECT_EQ(m.tasks, 5);
  EXPECT_DOUBLE_EQ(m.acc, 0.8);
  EXPECT_DOUBLE_EQ(m.speedup, (0.5 + 1.2 + 2.0 + 10.0 + 0.0) / 5);  // 2.74
  EXPECT_DOUBLE_EQ(m.fast_1_2, 2.0 / 5);  // 2.0 and 25; 1.2 itself is not above 1.2.
  EXPECT_DOUBLE_EQ(m.fast_2, 1.0 / 5);    // Only 25; 2.0 is not above 2.
  ASSERT_TRUE(m.geomean.has_value());
  EXPECT_NEAR(*m.geomean, std::pow(0.5 * 1.2 * 2.0 * 25.0, 0.25), 1e-12);  // Uncapped.
  EXPECT_DOUBLE_EQ(m.fast_p.at(0), 0.8);
  EXPECT_DOUBLE_EQ(m.fast_p.at(0.5), 0.6);  // Not 0.5 itself.
  EXPECT_DOUBLE_EQ(m.fast_p.at(0.8), 0.6);
  EXPECT_DOUBLE_EQ(m.fast_p.at(1), 0.6);
  EXPECT_DOUBLE_EQ(m.fast_p.at(1.5), 0.4);
  EXPECT_DOUBLE_EQ(m.fast_p.at(2), 0.2);
  EXPECT_EQ(m.steps, 8);
  EXPECT_DOUBLE_EQ(m.compile_rate, 6.0 / 8);
  EXPECT_DOUBLE_EQ(m.correct_rate, 4.0 / 8);
}

TEST(MetricsTest, NothingCorrectAndNothingAtAll) {
  const SuiteMetrics none = ComputeMetrics({{.task = "a", .steps = 2}});
  EXPECT_DOUBLE_EQ(none.acc, 0);
  EXPECT_DOUBLE_EQ(none.speedup, 0);
  EXPECT_FALSE(none.geomean.has_value());
  const SuiteMetrics empty = ComputeMetrics({});
  EXPECT_EQ(empty.tasks, 0);
  EXPECT_FALSE(empty.geomean.has_value());
}

TEST(MetricsTest, DegenerateTasksAreCountedNotDropped) {
  TaskOutcome weak = Correct("a", 3.0);
  weak.degenerate = true;
  const SuiteMetrics m = ComputeMetrics({weak, Correct("b", 1.0)});
  EXPECT_EQ(m.degenerate_tasks, 1);
  EXPECT_DOUBLE_EQ(m.acc, 1.0);
}

TEST(MetricsTest, MeanBestByStepHoldsTheLastValueAndCaps) {
  TaskOutcome a{.task = "a", .best_by_step = {0, 1.5, 30}};
  TaskOutcome b{.task = "b", .best_by_step = {2}};
  EXPECT_EQ(MeanBestByStep({a, b}), (std::vector<double>{1.0, 1.75, 6.0}));
  EXPECT_TRUE(MeanBestByStep({}).empty());
}

TEST(MetricsTest, AgainstTorchCompileByHand) {
  // a: 3x over eager, torch.compile 2x faster than eager -> 1.5x over torch.compile.
  TaskOutcome a = Correct("a", 3.0);
  a.eager_ms = 2.0;
  a.compiled_ms = 1.0;
  // b: 1.2x over eager, torch.compile 1.2x faster -> exactly 1.0: not strictly faster.
  TaskOutcome b = Correct("b", 1.2);
  b.eager_ms = 1.2;
  b.compiled_ms = 1.0;
  // c: wrong, with a baseline: counts in the share, not in the geomean.
  TaskOutcome c{.task = "c", .steps = 1, .eager_ms = 1.0, .compiled_ms = 1.0};
  // d: correct, eager baseline only (torch.compile failed): outside both.
  TaskOutcome d = Correct("d", 5.0);
  d.eager_ms = 1.0;
  ASSERT_TRUE(a.vs_compile().has_value());
  EXPECT_DOUBLE_EQ(*a.vs_compile(), 1.5);
  EXPECT_DOUBLE_EQ(*b.vs_compile(), 1.0);
  EXPECT_FALSE(c.vs_compile().has_value());
  EXPECT_FALSE(d.vs_compile().has_value());
  const SuiteMetrics m = ComputeMetrics({a, b, c, d});
  EXPECT_EQ(m.compile_tasks, 3);
  EXPECT_DOUBLE_EQ(m.beats_compile, 1.0 / 3);
  ASSERT_TRUE(m.geomean_vs_compile.has_value());
  EXPECT_DOUBLE_EQ(*m.geomean_vs_compile, std::sqrt(1.5 * 1.0));
  const SuiteMetrics none = ComputeMetrics({Correct("x", 2.0)});
  EXPECT_EQ(none.compile_tasks, 0);
  EXPECT_FALSE(none.geomean_vs_compile.has_value());
}

}  // namespace
}  // namespace adaexplore
