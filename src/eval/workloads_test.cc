#include "eval/workloads.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

SourceFile Definition() {
  SourceFile task;
  task.name = "gemm_n16_k32";
  task.path = "defs/gemm/gemm_n16_k32.json";
  task.sha256 = std::string(64, 'a');
  task.kind = TaskKind::kFlashInfer;
  for (int m : {1, 5, 16}) {
    task.workloads.push_back({{"uuid", "m" + std::to_string(m)}, {"axes", {{"M", m}}}});
  }
  return task;
}

EvalResult Part(Verdict verdict, std::optional<double> speedup, std::string reason = "") {
  EvalResult r;
  r.verdict = verdict;
  r.speedup = speedup;
  r.reason = std::move(reason);
  r.timing_meaningful = true;
  r.passed_trials = verdict == Verdict::kCorrect;
  r.cache_key = "k" + std::to_string(speedup.value_or(0));
  return r;
}

TEST(WorkloadsTest, EachWorkloadIsItsOwnRequestWithItsOwnHash) {
  const std::vector<SourceFile> parts = SplitWorkloads(Definition());
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[1].workload->at("uuid"), "m5");
  EXPECT_TRUE(parts[1].workloads.empty());
  EXPECT_NE(parts[0].sha256, parts[1].sha256);
  EXPECT_NE(parts[0].sha256, Definition().sha256);
  EXPECT_EQ(SplitWorkloads(Definition())[2].sha256, parts[2].sha256);  // Stable: cacheable.
}

TEST(WorkloadsTest, CorrectOnEveryWorkloadGivesTheMeanSpeedup) {
  const EvalResult r = CombineWorkloads(
      Definition(),
      {Part(Verdict::kCorrect, 1.0), Part(Verdict::kCorrect, 2.0), Part(Verdict::kCorrect, 3.0)});
  EXPECT_EQ(r.verdict, Verdict::kCorrect);
  ASSERT_TRUE(r.speedup.has_value());
  EXPECT_DOUBLE_EQ(*r.speedup, 2.0);
  EXPECT_TRUE(r.passed_trials);
  ASSERT_EQ(r.facts["workloads"].size(), 3u);
  EXPECT_EQ(r.facts["workloads"][2]["speedup"], 3.0);
  EXPECT_EQ(r.facts["workloads"][2]["axes"]["M"], 16);
  EXPECT_FALSE(r.facts.contains("interface"));  // No part said how the candidate is called.

  // How the candidate is called (what export's Solution needs) is kept from the parts.
  std::vector<EvalResult> called = {Part(Verdict::kCorrect, 1.0), Part(Verdict::kCorrect, 2.0),
                                    Part(Verdict::kCorrect, 3.0)};
  called[0].facts = {{"interface", {{"entry_point", "run"}, {"destination_passing_style", true}}}};
  EXPECT_EQ(CombineWorkloads(Definition(), called).facts["interface"]["entry_point"], "run");
}

// The definition's speedup compares the time its workloads' do (strict: GPU time), with the
// call's beside it; a workload whose GPU timeline gave nothing (compared in call time) is said.
TEST(WorkloadsTest, TheMeanSpeedupKeepsItsScope) {
  std::vector<EvalResult> parts = {Part(Verdict::kCorrect, 4.0), Part(Verdict::kCorrect, 6.0),
                                   Part(Verdict::kCorrect, 8.0)};
  for (EvalResult& p : parts) {
    p.scope = TimingScope::kGpu;
    p.speedup_call = 2.0;
  }
  EvalResult r = CombineWorkloads(Definition(), parts);
  EXPECT_EQ(r.scope, TimingScope::kGpu);
  EXPECT_DOUBLE_EQ(*r.speedup, 6.0);
  EXPECT_DOUBLE_EQ(*r.speedup_call, 2.0);
  EXPECT_EQ(r.facts["workloads"][1]["scope"], "gpu");
  EXPECT_TRUE(r.findings.empty());
  parts[2].scope = TimingScope::kCall;
  r = CombineWorkloads(Definition(), parts);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0],
            "workload 3's speedup compares call time, the first's gpu time: their mean mixes the "
            "two");
}

TEST(WorkloadsTest, TheExpertSpeedupIsTheMeanOverWorkloadsWhenEveryOneHasIt) {
  std::vector<EvalResult> parts = {Part(Verdict::kCorrect, 1.0), Part(Verdict::kCorrect, 2.0),
                                   Part(Verdict::kCorrect, 3.0)};
  for (size_t i = 0; i < parts.size(); ++i) {
    parts[i].expert = "flashinfer.norm.rmsnorm";
    parts[i].expert_timing = ComputeTimingStats({1.0});
    parts[i].speedup_expert = 0.5 * static_cast<double>(i + 1);
  }
  EvalResult r = CombineWorkloads(Definition(), parts);
  ASSERT_TRUE(r.speedup_expert.has_value());
  EXPECT_DOUBLE_EQ(*r.speedup_expert, 1.0);
  EXPECT_EQ(r.expert, "flashinfer.norm.rmsnorm");
  EXPECT_NE(r.reason.find("1x over flashinfer.norm.rmsnorm"), std::string::npos) << r.reason;
  EXPECT_EQ(r.facts["workloads"][1]["speedup_expert"], 1.0);
  EXPECT_EQ(r.facts["workloads"][1]["expert_name"], "flashinfer.norm.rmsnorm");

  parts[0].facts = {{"notes", {"expert baseline flashinfer.norm.rmsnorm unavailable: no GPU"}}};
  parts[2].facts = parts[0].facts;
  EXPECT_EQ(CombineWorkloads(Definition(), parts).facts["notes"], parts[0].facts["notes"]);

  parts[1].speedup_expert.reset();  // It disagreed on one workload: no figure for the task.
  r = CombineWorkloads(Definition(), parts);
  EXPECT_FALSE(r.speedup_expert.has_value());
  EXPECT_EQ(r.expert, "");
  EXPECT_TRUE(r.facts["workloads"][1]["speedup_expert"].is_null());
}

TEST(WorkloadsTest, TheFirstFailingWorkloadDecidesAndIsNamed) {
  const EvalResult r =
      CombineWorkloads(Definition(), {Part(Verdict::kCorrect, 1.0),
                                      Part(Verdict::kIncorrect, std::nullopt, "trial 0: wrong"),
                                      Part(Verdict::kRuntimeError, std::nullopt, "raised")});
  EXPECT_EQ(r.verdict, Verdict::kIncorrect);
  EXPECT_FALSE(r.speedup.has_value());
  EXPECT_FALSE(r.passed_trials);
  EXPECT_NE(r.reason.find("workload 2/3 (M=5): trial 0: wrong"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("2 of 3 workloads failed"), std::string::npos) << r.reason;
}

TEST(WorkloadsTest, ARejectionOrAHarnessErrorOnAnyWorkloadComesFirst) {
  EvalResult rejected = Part(Verdict::kRejected, std::nullopt, "inputs mutated");
  rejected.check = "inputs_mutated";
  EvalResult r = CombineWorkloads(Definition(), {Part(Verdict::kIncorrect, std::nullopt),
                                                 Part(Verdict::kCorrect, 1.0), rejected});
  EXPECT_EQ(r.verdict, Verdict::kRejected);
  EXPECT_EQ(r.check, "inputs_mutated");
  r = CombineWorkloads(Definition(), {rejected, Part(Verdict::kError, std::nullopt, "no worker"),
                                      Part(Verdict::kCorrect, 1.0)});
  EXPECT_EQ(r.verdict, Verdict::kError);
}

}  // namespace
}  // namespace adaexplore
