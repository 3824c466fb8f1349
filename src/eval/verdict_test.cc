#include "eval/verdict.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace adaexplore {
namespace {

TEST(VerdictTest, NamesRoundTrip) {
  for (Verdict v : {Verdict::kCorrect, Verdict::kIncorrect, Verdict::kRejected,
                    Verdict::kCompileError, Verdict::kRuntimeError, Verdict::kTimeout,
                    Verdict::kCrash, Verdict::kTaskError, Verdict::kError}) {
    EXPECT_EQ(ParseVerdict(VerdictName(v)), v);
  }
  EXPECT_FALSE(ParseVerdict("fine").has_value());
}

TEST(TimingStatsTest, MedianTrimmedMeanAndSpread) {
  std::vector<double> samples;
  for (int i = 1; i <= 100; ++i) {
    samples.push_back(i);
  }
  samples[99] = 10'000;  // One outlier: the trimmed mean drops it, the mean does not.
  TimingStats s = ComputeTimingStats(samples);
  EXPECT_EQ(s.runs, 100);
  EXPECT_DOUBLE_EQ(s.median_ms, 50.5);
  EXPECT_DOUBLE_EQ(s.trimmed_mean_ms, 50.5);  // Mean of 6..95.
  EXPECT_GT(s.mean_ms, 100);
  EXPECT_DOUBLE_EQ(s.min_ms, 1);
  EXPECT_DOUBLE_EQ(s.max_ms, 10'000);
  EXPECT_NEAR(s.cv, s.std_ms / s.mean_ms, 1e-12);
}

TEST(TimingStatsTest, EmptyAndSingle) {
  EXPECT_EQ(ComputeTimingStats({}).runs, 0);
  TimingStats one = ComputeTimingStats({2.0});
  EXPECT_DOUBLE_EQ(one.median_ms, 2.0);
  EXPECT_DOUBLE_EQ(one.trimmed_mean_ms, 2.0);
  EXPECT_DOUBLE_EQ(one.std_ms, 0.0);
}

// The noise figure: the median's 95% interval from order statistics, as the worker's stopping
// rule reads it (python/tests/test_stopping.py checks the same series): n = 20 gives ranks 5
// and 15 around a median of 10.5.
TEST(TimingStatsTest, MedianHalfwidth) {
  std::vector<double> series;
  for (int v = 20; v >= 1; --v) {
    series.push_back(v);
  }
  EXPECT_DOUBLE_EQ(ComputeTimingStats(series).median_halfwidth, (15.0 - 5.0) / 2 / 10.5);
  EXPECT_DOUBLE_EQ(ComputeTimingStats(std::vector<double>(20, 2.0)).median_halfwidth, 0.0);
  EXPECT_TRUE(std::isinf(ComputeTimingStats({1.0}).median_halfwidth));
  // Infinite is null in JSON, and read back as infinite; a finite figure survives the trip.
  EXPECT_TRUE(ToJson(ComputeTimingStats({1.0}))["median_halfwidth"].is_null());
  EXPECT_TRUE(std::isinf(TimingStatsFromJson(ToJson(ComputeTimingStats({1.0}))).median_halfwidth));
  EXPECT_DOUBLE_EQ(TimingStatsFromJson(ToJson(ComputeTimingStats(series))).median_halfwidth,
                   (15.0 - 5.0) / 2 / 10.5);
}

TEST(EvalResultTest, JsonRoundTrip) {
  EvalResult r;
  r.task = "relu";
  r.kernel_path = "k.py";
  r.verdict = Verdict::kCorrect;
  r.reason = "ok";
  r.speedup = 1.5;
  r.candidate_timing = ComputeTimingStats({1, 2, 3});
  r.statistic = Statistic::kMedian;
  r.timing_meaningful = true;
  r.passed_trials = true;
  r.expert = "flashinfer.norm.rmsnorm";
  r.expert_timing = ComputeTimingStats({4, 5, 6});
  r.speedup_expert = 2.5;
  EvalResult back = EvalResultFromJson(ToJson(r));
  EXPECT_EQ(back.expert, "flashinfer.norm.rmsnorm");
  EXPECT_EQ(back.speedup_expert, 2.5);
  ASSERT_TRUE(back.expert_timing.has_value());
  EXPECT_DOUBLE_EQ(back.expert_timing->median_ms, 5);
  EXPECT_TRUE(back.passed_trials);
  EXPECT_EQ(back.statistic, Statistic::kMedian);
  EXPECT_EQ(back.verdict, Verdict::kCorrect);
  EXPECT_EQ(back.speedup, 1.5);
  ASSERT_TRUE(back.candidate_timing.has_value());
  EXPECT_DOUBLE_EQ(back.candidate_timing->median_ms, 2);
  EXPECT_FALSE(back.reference_timing.has_value());
  EXPECT_TRUE(back.timing_meaningful);
  EXPECT_EQ(ToJson(r)["speedup"], 1.5);
  EXPECT_TRUE(ToJson(EvalResult{})["speedup"].is_null());
}

// A step's outcome is a verdict or no kernel, stored by name and read back; a name that is
// neither is refused, not taken for an error.
TEST(StepVerdictTest, NamesRoundTripAndUnknownNamesAreRefused) {
  EXPECT_EQ(StepVerdict::NoKernel().name(), "no_kernel");
  EXPECT_FALSE(StepVerdict::NoKernel().has_kernel());
  EXPECT_EQ(StepVerdict::Of(Verdict::kRejected).name(), "rejected");
  EXPECT_TRUE(StepVerdict::Of(Verdict::kRejected).is(Verdict::kRejected));
  EXPECT_FALSE(StepVerdict::NoKernel().is(Verdict::kError));
  for (const StepVerdict& v : {StepVerdict::NoKernel(), StepVerdict::Of(Verdict::kCorrect),
                               StepVerdict::Of(Verdict::kTaskError)}) {
    const std::optional<StepVerdict> back = StepVerdict::Parse(v.name());
    ASSERT_TRUE(back.has_value()) << v.name();
    EXPECT_EQ(back->kernel, v.kernel) << v.name();
  }
  EXPECT_FALSE(StepVerdict::Parse("nokernel").has_value());
  EXPECT_FALSE(StepVerdict::Parse("").has_value());
}

}  // namespace
}  // namespace adaexplore
