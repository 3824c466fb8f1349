#include "app/result_format.h"

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

TEST(OutputTest, VerboseListsADefinitionsFailingWorkloads) {
  EvalResult r;
  r.kernel_path = "k.py";
  r.task = "rmsnorm_h128";
  r.verdict = Verdict::kIncorrect;
  r.reason = "workload 2/3 (batch_size=7): max abs error 0.5 (2 of 3 workloads failed)";
  r.facts = {{"workloads",
              {{{"uuid", "a"}, {"axes", {{"batch_size", 1}}}, {"verdict", "correct"}},
               {{"uuid", "b"},
                {"axes", {{"batch_size", 7}}},
                {"verdict", "incorrect"},
                {"reason", "max abs error 0.5\nmore"}},
               {{"uuid", "c"}, {"verdict", "timeout"}, {"reason", "over 180 s"}}}}};
  const std::string full = FormatHuman(r, Detail::kFull);
  EXPECT_NE(full.find("\n    workload 2/3 (batch_size=7): incorrect: max abs error 0.5\n"
                      "    workload 3/3 (c): timeout: over 180 s\n"),
            std::string::npos)
      << full;
  EXPECT_EQ(full.find("workload 1/3"), std::string::npos);
  EXPECT_EQ(FormatHuman(r, Detail::kBrief).find("    workload"), std::string::npos);
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

TEST(OutputTest, JsonLineSaysHowTheTimingRanAndOnWhatClocks) {
  EvalResult r;
  r.verdict = Verdict::kCorrect;
  const nlohmann::json reading = {{"sm_mhz", 1980}, {"mem_mhz", 3201}};
  r.facts = {{"timing",
              {{"timed_runs", 20},
               {"stopped", "precision"},
               {"reference_check", {{"reused", true}}},
               {"gpu_state", {{"before", reading}, {"after", reading}}},
               {"candidate_ms", {1.0, 1.0}}}},
             {"reference_trace", {{"busy_us", 40.0}}}};
  const nlohmann::json j = nlohmann::json::parse(FormatJsonLine(r));
  const nlohmann::json& timing = j["details"]["timing"];
  EXPECT_EQ(timing["timed_runs"], 20);
  EXPECT_EQ(timing["stopped"], "precision");
  EXPECT_TRUE(timing["reference_check"]["reused"].get<bool>());
  EXPECT_EQ(timing["gpu_state"]["after"]["sm_mhz"], 1980);
  EXPECT_FALSE(timing.contains("candidate_ms"));  // Samples are for the run database.
  EXPECT_DOUBLE_EQ(j["details"]["reference_trace"]["busy_us"].get<double>(), 40.0);
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
