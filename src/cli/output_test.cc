#include "cli/output.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

TEST(OutputTest, CorrectLineShowsSpeedupAndTimes) {
  EvalResult r;
  r.kernel_path = "k.py";
  r.task = "relu";
  r.verdict = Verdict::kCorrect;
  r.speedup = 2.0;
  r.statistic = Statistic::kMedian;
  r.timing_meaningful = true;
  r.candidate_timing = ComputeTimingStats({1.0, 1.0});
  r.reference_timing = ComputeTimingStats({2.0, 2.0});
  EXPECT_EQ(FormatHuman(r, Detail::kBrief),
            "k.py  [relu]  correct  2x  (kernel 1 ms vs eager 2 ms, median of 2, CV 0.0%)\n");
}

TEST(OutputTest, FailureLineShowsReasonAndDetailOnRequest) {
  EvalResult r;
  r.kernel_path = "k.py";
  r.task = "relu";
  r.verdict = Verdict::kRuntimeError;
  r.reason = "forward raised ValueError: no";
  r.error_text = "Traceback\n  line\nValueError: no\n";
  EXPECT_EQ(FormatHuman(r, Detail::kBrief),
            "k.py  [relu]  runtime_error  forward raised ValueError: no\n");
  EXPECT_NE(FormatHuman(r, Detail::kFull).find("    ValueError: no\n"), std::string::npos);
}

TEST(OutputTest, JsonLineHasTheStableFields) {
  EvalResult r;
  r.verdict = Verdict::kIncorrect;
  r.reason = "trial 0: bad";
  r.facts = {{"big", "x"}, {"kernel_trace", {{"own_us", 12.5}, {"pytorch_us", 0}}}};
  nlohmann::json j = nlohmann::json::parse(FormatJsonLine(r));
  EXPECT_EQ(j["verdict"], "incorrect");
  EXPECT_EQ(j["reason"], "trial 0: bad");
  EXPECT_TRUE(j["speedup"].is_null());
  EXPECT_FALSE(j.contains("facts"));
  EXPECT_FALSE(j["details"].contains("big"));
  // Which kernels ran (GPU) is part of the summary.
  EXPECT_DOUBLE_EQ(j["details"]["kernel_trace"]["own_us"].get<double>(), 12.5);
}

TEST(OutputTest, SummaryCountsVerdicts) {
  std::vector<EvalResult> results(3);
  results[0].verdict = Verdict::kCorrect;
  results[1].verdict = Verdict::kCorrect;
  results[2].verdict = Verdict::kTimeout;
  EXPECT_EQ(FormatSummary(results), "3 candidates: 2 correct, 1 timeout\n");
}

}  // namespace
}  // namespace adaexplore
