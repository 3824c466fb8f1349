#include "eval/classify.h"

#include <gtest/gtest.h>

#include "eval/settings.h"
#include "eval_facts.h"

namespace adaexplore {
namespace {

using nlohmann::json;

using test_facts::PassingTrial;
using test_facts::Timing;

// Classifies `facts`, and checks what holds for every verdict: a rejection names the declared
// check behind it (eval/checks.h), and nothing else names one.
EvalResult ClassifyFacts(const json& facts, const EvalProfile& profile = StrictProfile()) {
  EvalResult r;
  Classify(facts, profile, r);
  if (r.verdict == Verdict::kRejected) {
    const IntegrityCheck* check = FindIntegrityCheck(r.check);
    EXPECT_NE(check, nullptr) << "a rejection without its check: " << r.reason;
    if (check != nullptr) {
      EXPECT_TRUE(CheckApplies(*check, profile)) << r.check << " is off in " << profile.name;
    }
  } else {
    EXPECT_EQ(r.check, "") << r.reason;
  }
  return r;
}

TEST(ClassifyTest, CorrectWithSpeedup) {
  EvalResult r = ClassifyFacts({{"status", "ok"},
                                {"trials", {PassingTrial(0), PassingTrial(1)}},
                                {"determinism", {{"passed", true}}},
                                {"flags_changed_by_import", json::array()},
                                {"timing", Timing(0.5, 1.5)}});
  EXPECT_EQ(r.verdict, Verdict::kCorrect);
  ASSERT_TRUE(r.speedup.has_value());
  EXPECT_DOUBLE_EQ(*r.speedup, 3.0);
  EXPECT_DOUBLE_EQ(*r.max_abs_err, 1e-7);
  EXPECT_TRUE(r.timing_meaningful);
  EXPECT_EQ(r.statistic, Statistic::kMedian);
}

// FlashInfer's own kernel timed beside the candidate: a speedup over it when it computes what the
// reference does, a finding and no figure when it does not; the verdict is the candidate's alone.
TEST(ClassifyTest, TheExpertBaselineGivesASpeedupOnlyWhenItAgreesWithTheReference) {
  json facts = test_facts::CorrectFacts(0.5, 1.5);
  facts["timing"]["expert_ms"] = json::array({1.0, 1.0, 1.0});
  facts["timing"]["expert_gpu_ms"] = json::array({1.0, 1.0, 1.0});
  facts["expert"] = {{"name", "flashinfer.norm.rmsnorm"}, {"agrees", true}};
  EvalResult r = ClassifyFacts(facts);
  EXPECT_EQ(r.verdict, Verdict::kCorrect) << r.reason;
  EXPECT_EQ(r.expert, "flashinfer.norm.rmsnorm");
  ASSERT_TRUE(r.speedup_expert && r.expert_timing);
  EXPECT_DOUBLE_EQ(*r.speedup_expert, 2.0);
  EXPECT_DOUBLE_EQ(r.expert_timing->median_ms, 1.0);

  facts["expert"]["agrees"] = false;
  facts["expert"]["relative_error"] = 0.5;
  r = ClassifyFacts(facts);
  EXPECT_EQ(r.verdict, Verdict::kCorrect);
  EXPECT_FALSE(r.speedup_expert.has_value());
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_NE(r.findings[0].find("flashinfer.norm.rmsnorm does not match the reference"),
            std::string::npos)
      << r.findings[0];

  facts.erase("expert");  // Timed runs without the fact that says what ran: nothing is claimed.
  r = ClassifyFacts(facts);
  EXPECT_FALSE(r.speedup_expert.has_value());
  EXPECT_EQ(r.expert, "");
}

TEST(ClassifyTest, AShrunkTaskMarksItsResultWithTheSizesItChanged) {
  json facts = test_facts::CorrectFacts(0.5, 1.5);
  facts["shrink"] = {{"factor", 16},
                     {"applies", true},
                     {"changed", {{"batch_size", {4096, 256}}, {"dim", {393216, 24576}}}}};
  EvalResult r = ClassifyFacts(facts);
  EXPECT_EQ(r.verdict, Verdict::kCorrect);
  EXPECT_EQ(r.shrink, 16);
  EXPECT_EQ(r.shrunk, (std::vector<std::string>{"batch_size 4096 -> 256", "dim 393216 -> 24576"}));
  EXPECT_EQ(EvalResultFromJson(ToJson(r)).shrunk, r.shrunk);  // Kept in the cache and database.
  // Nothing changed (every size small already), or a kind it does not apply to: its own sizes.
  facts["shrink"]["changed"] = json::object();
  EXPECT_EQ(ClassifyFacts(facts).shrink, 1);
  facts["shrink"] = {{"factor", 16}, {"applies", false}, {"changed", json::object()}};
  EXPECT_EQ(ClassifyFacts(facts).shrink, 1);
}

TEST(ClassifyTest, ATaskTooBigForTheMachineSuggestsShrinking) {
  EvalResult r = ClassifyFacts(
      {{"status", "memory_limit"}, {"phase", "reference"}, {"memory_limit_mb", 6144}});
  EXPECT_EQ(r.verdict, Verdict::kTaskError);
  EXPECT_NE(r.reason.find("(--shrink 64 judges it on smaller sizes, as a smoke test)"),
            std::string::npos)
      << r.reason;
}

json TracedFacts(double own_us, double pytorch_us) {
  return {{"status", "ok"},
          {"trials", {PassingTrial(0)}},
          {"determinism", {{"passed", true}}},
          {"flags_changed_by_import", json::array()},
          {"kernel_trace",
           {{"own_us", own_us},
            {"pytorch_us", pytorch_us},
            {"neutral_us", 3.0},
            {"kernels",
             {{{"name", "void at::native::vectorized_elementwise_kernel<4, GeluCUDAKernelImpl>"},
               {"kind", "pytorch"},
               {"us", pytorch_us}}}}}},
          {"timing", Timing(0.5, 1.5)}};
}

TEST(ClassifyTest, KernelTraceWithOnlyPytorchKernelsIsRejected) {
  EvalResult r = ClassifyFacts(TracedFacts(0, 50));
  EXPECT_EQ(r.verdict, Verdict::kRejected);
  EXPECT_NE(r.reason.find("kernel trace: the call ran only PyTorch's own kernels"),
            std::string::npos)
      << r.reason;
  EXPECT_NE(r.reason.find("GeluCUDAKernelImpl"), std::string::npos) << r.reason;
  // The paper profile traces too; only the release's own check does not.
  EXPECT_EQ(ClassifyFacts(TracedFacts(0, 50), PaperProfile()).verdict, Verdict::kRejected);
  EXPECT_EQ(ClassifyFacts(TracedFacts(0, 50), ReferenceProfile()).verdict, Verdict::kCorrect);
  // Unless the run lets pure PyTorch rewrites count.
  EvalProfile unrestricted = StrictProfile();
  unrestricted.pytorch_compute = PytorchCompute::kUnrestricted;
  EXPECT_EQ(ClassifyFacts(TracedFacts(0, 50), unrestricted).verdict, Verdict::kCorrect);
  // No kernel at all is not this check's business (aliasing and the trials are).
  EXPECT_EQ(ClassifyFacts(TracedFacts(0, 0)).verdict, Verdict::kCorrect);
}

TEST(ClassifyTest, PytorchComputeShareCountsOnlyWhenForbidden) {
  // 50 of 60 us in PyTorch's kernels: allowed by default, rejected when forbidden.
  EXPECT_EQ(ClassifyFacts(TracedFacts(10, 50)).verdict, Verdict::kCorrect);
  EvalProfile forbidden = StrictProfile();
  forbidden.pytorch_compute = PytorchCompute::kForbidden;
  EvalResult r = ClassifyFacts(TracedFacts(10, 50), forbidden);
  EXPECT_EQ(r.verdict, Verdict::kRejected);
  EXPECT_NE(r.reason.find("83% of the call's kernel time"), std::string::npos) << r.reason;
  // A small helper op (5 of 105 us) stays within the 10% allowed.
  EXPECT_EQ(ClassifyFacts(TracedFacts(100, 5), forbidden).verdict, Verdict::kCorrect);
  EXPECT_FALSE(ApplyEvalSettings({{"pytorch_compute", "sometimes"}}, forbidden).ok());
}

TEST(ClassifyTest, WrongValuesAreIncorrectWithTheWorstElement) {
  json trial = PassingTrial(2);
  trial["passed"] = false;
  trial["distribution"] = "normal";
  trial["outputs"][0]["values"] = {
      {"passed", false},
      {"violations", 7},
      {"numel", 100},
      {"nonfinite_out", 0},
      {"max_abs_err", 0.5},
      {"worst", {{"flat_index", 3}, {"out_text", "1.5"}, {"ref_text", "1.0"}}}};
  EvalResult r = ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0), trial}}});
  EXPECT_EQ(r.verdict, Verdict::kIncorrect);
  EXPECT_EQ(r.reason,
            "trial 2 (normal inputs): 7 of 100 elements outside tolerance; worst at "
            "flat index 3: got 1.5, expected 1.0");
  EXPECT_FALSE(r.speedup.has_value());
}

TEST(ClassifyTest, AliasingAndSubclassesAreRejectedButShapesAreIncorrect) {
  json alias = PassingTrial(0);
  alias["passed"] = false;
  alias["outputs"][0]["form"] = {{"exact_tensor", true},
                                 {"aliases_input", true},
                                 {"problems", {"output shares storage with an input"}}};
  EXPECT_EQ(ClassifyFacts({{"status", "ok"}, {"trials", {alias}}}).verdict, Verdict::kRejected);
  json shape = PassingTrial(0);
  shape["passed"] = false;
  shape["outputs"][0]["form"] = {{"exact_tensor", true},
                                 {"problems", {"output shape [2] != reference shape [3]"}}};
  EvalResult r = ClassifyFacts({{"status", "ok"}, {"trials", {shape}}});
  EXPECT_EQ(r.verdict, Verdict::kIncorrect);
  EXPECT_EQ(r.reason, "trial 0: output shape [2] != reference shape [3]");
}

TEST(ClassifyTest, MutatedInputsAndReplayAreRejected) {
  json trial = PassingTrial(0);
  trial["passed"] = false;
  trial["inputs_mutated"] = {0};
  EXPECT_EQ(ClassifyFacts({{"status", "ok"}, {"trials", {trial}}}).verdict, Verdict::kRejected);
  json timing = Timing(0.01, 1.0);
  timing["revalidation_failures"] = 19;
  EvalResult r =
      ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"timing", timing}});
  EXPECT_EQ(r.verdict, Verdict::kRejected);
  EXPECT_NE(r.reason.find("19 of 20 timed runs"), std::string::npos);
  // The first failure's detail, where the worker gives it.
  timing["first_revalidation_failure"] = {{"run", 1}, {"problem", "values"}, {"violations", 12}};
  r = ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"timing", timing}});
  EXPECT_NE(r.reason.find("(0 mutated their inputs; the first at timed run 1: 12 output elements "
                          "outside the tolerance)"),
            std::string::npos)
      << r.reason;
  timing["first_revalidation_failure"] = {{"run", 0}, {"problem", "output form changed"}};
  r = ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"timing", timing}});
  EXPECT_NE(r.reason.find("the first at timed run 0: output form changed"), std::string::npos);
  timing["first_revalidation_failure"] = {{"run", 4}};
  r = ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"timing", timing}});
  EXPECT_NE(r.reason.find("the first at timed run 4: the outputs matched, the inputs changed"),
            std::string::npos);
}

TEST(ClassifyTest, WorkThatEscapesTheTimedStreamIsRejected) {
  json timing = Timing(0.01, 2.0);
  timing["candidate_wall_ms"] = json::array();
  for (int i = 0; i < 20; ++i) {
    timing["candidate_wall_ms"].push_back(2.0);  // The sync waited 2 ms the events never saw.
  }
  EvalResult r =
      ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"timing", timing}});
  EXPECT_EQ(r.verdict, Verdict::kRejected);
  EXPECT_NE(r.reason.find("escaped the timed stream"), std::string::npos);
  // A head start that grew a spin (--head-start-max-us) is not in a run's wall time (it counts
  // from the head start's end, timing.py): the wall view holds with one.
  json grown = timing;
  grown["host_late_runs"] = 3;
  grown["host_late_dropped"] = 3;
  grown["head_start_us"] = 4800.0;
  EXPECT_EQ(
      ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"timing", grown}}).verdict,
      Verdict::kRejected);
  // Launch latency on a short kernel is not an escape.
  for (auto& v : timing["candidate_wall_ms"]) {
    v = 0.15;
  }
  timing["candidate_ms"] = json::array();
  for (int i = 0; i < 20; ++i) {
    timing["candidate_ms"].push_back(0.02);
  }
  EXPECT_EQ(
      ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"timing", timing}}).verdict,
      Verdict::kCorrect);
}

// A series of `n` equal samples.
json Series(double ms, int n = 20) { return json(std::vector<double>(n, ms)); }

// A 0.2 ms kernel on a side stream the caller never waits for, timed at 0.04 ms by its stream's
// events. Its wall time hides in the launch latency; its tail does not.
TEST(ClassifyTest, AnEscapeShowsInTheTailAfterTheEndEvent) {
  json timing = Timing(0.04, 0.25);
  timing["candidate_wall_ms"] = Series(0.3);
  timing["reference_tail_ms"] = Series(0.004);
  timing["candidate_tail_ms"] = Series(0.165);
  EvalResult r =
      ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"timing", timing}});
  EXPECT_EQ(r.verdict, Verdict::kRejected);
  EXPECT_EQ(r.check, "stream_escape");
  EXPECT_NE(r.reason.find("stayed busy 0.161 ms more"), std::string::npos) << r.reason;
  // An honest call: the synchronise's own latency, above the reference's by the noise the
  // H200 showed (11 us).
  timing["candidate_tail_ms"] = Series(0.015);
  EXPECT_EQ(
      ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"timing", timing}}).verdict,
      Verdict::kCorrect);
  // A long kernel: the floor and 10% of its time.
  json long_call = Timing(10.0, 20.0);
  long_call["reference_tail_ms"] = Series(0.004);
  long_call["candidate_tail_ms"] = Series(0.8);  // 8% of its time.
  EXPECT_EQ(ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"timing", long_call}})
                .verdict,
            Verdict::kCorrect);
  long_call["candidate_tail_ms"] = Series(1.5);
  EXPECT_EQ(ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"timing", long_call}})
                .verdict,
            Verdict::kRejected);
  // The paper profile checks it too; reference does not.
  EXPECT_EQ(ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"timing", long_call}},
                          ReferenceProfile())
                .verdict,
            Verdict::kCorrect);
}

// A 16 ms GEMM on a non-blocking stream of the candidate's own, launched in the call: it runs
// beside the head start (which it slows to about its own length), the call's events see 1 us,
// and the device is idle again by the end event: neither tail nor wall time shows it.
TEST(ClassifyTest, WorkRunBeforeTheWindowSlowsTheHeadStart) {
  json timing = Timing(0.0012, 2.67);
  timing["candidate_wall_ms"] = Series(0.01);
  timing["candidate_tail_ms"] = Series(0.004);
  timing["reference_tail_ms"] = Series(0.004);
  timing["reference_head_over_ms"] = Series(0.002);
  timing["candidate_head_over_ms"] = Series(15.9);
  EvalResult r =
      ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"timing", timing}});
  EXPECT_EQ(r.verdict, Verdict::kRejected);
  EXPECT_EQ(r.check, "stream_escape");
  EXPECT_NE(r.reason.find("the head start before each timed call ran 15.9 ms longer than planned"),
            std::string::npos)
      << r.reason;
  // An honest call's head start keeps to its plan within the noise of the reference's.
  timing["candidate_head_over_ms"] = Series(0.012);
  EXPECT_EQ(
      ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"timing", timing}}).verdict,
      Verdict::kCorrect);
  // A long call: 10% of its time at least.
  json long_call = Timing(10.0, 20.0);
  long_call["candidate_head_over_ms"] = Series(0.8);
  EXPECT_EQ(ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"timing", long_call}})
                .verdict,
            Verdict::kCorrect);
  long_call["candidate_head_over_ms"] = Series(1.5);
  EXPECT_EQ(ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"timing", long_call}})
                .verdict,
            Verdict::kRejected);
}

// The kernel trace: any of the call's work that ran outside its window on the caller's stream,
// however little.
TEST(ClassifyTest, TheTraceMarkerCatchesWorkLeftOnASideStream) {
  json facts = test_facts::CorrectFacts(0.004, 0.01);
  facts["kernel_trace"] = {{"kernels", json::array()},
                           {"own_us", 3.0},
                           {"pytorch_us", 0.0},
                           {"escaped_us", 2.5},
                           {"escaped_kernels", 1}};
  EvalResult r = ClassifyFacts(facts);
  EXPECT_EQ(r.verdict, Verdict::kRejected);
  EXPECT_EQ(r.check, "stream_escape");
  EXPECT_NE(r.reason.find("1 of the call's kernels ran 2.5 us outside the call's window"),
            std::string::npos)
      << r.reason;
  facts["kernel_trace"]["escaped_us"] = 0.0;
  facts["kernel_trace"]["escaped_kernels"] = 0;
  EXPECT_EQ(ClassifyFacts(facts).verdict, Verdict::kCorrect);
  facts["kernel_trace"]["escaped_us"] = nullptr;  // No marker found: the trace says nothing.
  EXPECT_EQ(ClassifyFacts(facts).verdict, Verdict::kCorrect);
}

// The GPU's clocks before and after the timed runs: a timing during which they moved, or the
// GPU throttled, is marked; the verdict and the figure stay.
TEST(ClassifyTest, ATimingWhoseClocksMovedIsMarked) {
  json facts = test_facts::CorrectFacts(0.5, 1.5);
  const json steady = {{"sm_mhz", 1980},
                       {"mem_mhz", 3201},
                       {"temperature_c", 41},
                       {"pstate", 0},
                       {"throttle", json::array()}};
  facts["timing"]["gpu_state"] = {{"before", steady}, {"after", steady}};
  EvalResult r = ClassifyFacts(facts);
  EXPECT_EQ(r.verdict, Verdict::kCorrect);
  EXPECT_TRUE(r.findings.empty()) << r.findings.front();
  json slowed = steady;
  slowed["sm_mhz"] = 1500;
  slowed["throttle"] = {"sw_thermal", "gpu_idle"};
  facts["timing"]["gpu_state"]["after"] = slowed;
  r = ClassifyFacts(facts);
  EXPECT_EQ(r.verdict, Verdict::kCorrect);
  ASSERT_EQ(r.findings.size(), 1U);
  EXPECT_EQ(r.findings[0],
            "clocks moved during timing (SM clock 1980 -> 1500 MHz; slowed by sw_thermal): the "
            "figure may not repeat");
  EXPECT_DOUBLE_EQ(*r.speedup, 3.0);
  // NVML unreachable: nothing to say.
  facts["timing"]["gpu_state"] = nullptr;
  EXPECT_TRUE(ClassifyFacts(facts).findings.empty());
}

TEST(ClassifyTest, ACallTimingThatDidNotSettleGivesNoSpeedup) {
  json facts = test_facts::CorrectFacts(0.5, 1.5);
  // Twenty runs spread over 0.2-2.1 ms: the median known to about +-40%.
  for (int i = 0; i < 20; ++i) {
    facts["timing"]["candidate_ms"][i] = 0.2 + 0.1 * i;
  }
  EvalProfile call = StrictProfile();
  call.speedup_scope = TimingScope::kCall;
  EvalResult r = ClassifyFacts(facts, call);
  EXPECT_EQ(r.verdict, Verdict::kCorrect);  // The verdict is the kernel's; only the figure goes.
  EXPECT_FALSE(r.speedup.has_value());
  EXPECT_TRUE(r.timing_unsettled);
  ASSERT_EQ(r.findings.size(), 1U);
  EXPECT_TRUE(r.findings[0].starts_with(
      "timing did not settle: after 20 runs the candidate's median is known to +-"))
      << r.findings[0];
  EXPECT_NE(r.findings[0].find("over the 5.0% a speedup needs (--settle-limit)"), std::string::npos)
      << r.findings[0];
  EXPECT_TRUE(ToJson(r)["timing"]["unsettled"].get<bool>());
  // A profile that reproduces a harness's fixed count gives its number, as that harness does.
  const EvalResult paper = ClassifyFacts(facts, PaperProfile());
  EXPECT_TRUE(paper.speedup.has_value());
  EXPECT_FALSE(paper.timing_unsettled);
  // Strict compares GPU time, steady here: its number stands, the call's beside it.
  const EvalResult strict = ClassifyFacts(facts);
  EXPECT_EQ(strict.scope, TimingScope::kGpu);
  EXPECT_DOUBLE_EQ(*strict.speedup, 3.0);
  EXPECT_TRUE(strict.speedup_call.has_value());
  // The same spread on a steady series is settled; so is a CPU's timing, which means nothing.
  EXPECT_TRUE(ClassifyFacts(test_facts::CorrectFacts(0.5, 1.5), call).speedup.has_value());
  facts["timing"]["meaningful"] = false;
  EXPECT_TRUE(ClassifyFacts(facts, call).speedup.has_value());
}

// The GPU scope: each side's GPU times of the timed runs. A spread GPU series keeps its number
// with its +- and a finding; a host-bound call is said; a timeline that gave nothing, or a run
// without GPU work, falls back to the call's timed runs, and says so.
TEST(ClassifyTest, StrictComparesGpuTimeAndNeverLeavesAnHonestKernelWithoutANumber) {
  json facts = test_facts::CorrectFacts(0.5, 1.5);
  for (int i = 0; i < 20; ++i) {
    facts["timing"]["candidate_gpu_ms"][i] = 0.01 + 0.002 * i;  // 10-48 us: +-20% or so.
    facts["timing"]["reference_gpu_ms"][i] = 1.2;
  }
  EvalResult r = ClassifyFacts(facts);
  EXPECT_EQ(r.verdict, Verdict::kCorrect);
  EXPECT_EQ(r.scope, TimingScope::kGpu);
  ASSERT_TRUE(r.speedup && r.speedup_call && r.candidate_gpu_timing && r.reference_gpu_timing);
  EXPECT_NEAR(*r.speedup, 1.2 / 0.029, 1e-9);  // The medians' ratio.
  EXPECT_DOUBLE_EQ(*r.speedup_call, 3.0);
  EXPECT_FALSE(r.timing_unsettled);
  ASSERT_EQ(r.findings.size(), 1U);
  EXPECT_TRUE(
      r.findings[0].starts_with("GPU time did not settle: after 20 runs the candidate's "
                                "median GPU time is known to +-"))
      << r.findings[0];
  const json j = ToJson(r);
  EXPECT_EQ(j["scope"], "gpu");
  EXPECT_DOUBLE_EQ(j["speedup_call"].get<double>(), 3.0);
  EXPECT_EQ(j["timing"]["candidate_gpu"]["runs"], 20);
  const EvalResult back = EvalResultFromJson(j);
  EXPECT_EQ(back.scope, TimingScope::kGpu);
  EXPECT_DOUBLE_EQ(back.reference_gpu_timing->median_ms, 1.2);
  EXPECT_DOUBLE_EQ(*back.speedup_call, 3.0);

  // 95 us of host per 24 us of GPU: said, the GPU figure kept.
  facts = test_facts::CorrectFacts(0.5, 1.5);
  for (int i = 0; i < 20; ++i) {
    facts["timing"]["candidate_gpu_ms"][i] = 0.024;
    facts["timing"]["candidate_host_ms"][i] = 0.095;
  }
  r = ClassifyFacts(facts);
  EXPECT_DOUBLE_EQ(*r.speedup, 1.5 / 0.024);
  ASSERT_EQ(r.findings.size(), 1U);
  EXPECT_TRUE(r.findings[0].starts_with("host-bound: 95 us of host per call against 24 us of GPU"))
      << r.findings[0];

  // A run without GPU work inside its call: the call's runs are compared, and the result says so.
  facts = test_facts::CorrectFacts(0.5, 1.5);
  facts["timing"]["candidate_gpu_ms"][3] = nullptr;
  r = ClassifyFacts(facts);
  EXPECT_EQ(r.scope, TimingScope::kCall);
  EXPECT_DOUBLE_EQ(*r.speedup, 3.0);
  ASSERT_EQ(r.findings.size(), 1U);
  EXPECT_EQ(r.findings[0],
            "1 of the candidate's 20 timed runs launched no GPU work inside the call: the speedup "
            "compares the call's timed runs (the call scope), not GPU time");
  facts = test_facts::CorrectFacts(0.5, 1.5);
  facts["timing"].erase("candidate_gpu_ms");
  facts["timing"]["gpu_timeline_lost"] = "cupti-python is not installed";
  r = ClassifyFacts(facts);
  EXPECT_EQ(r.scope, TimingScope::kCall);
  EXPECT_TRUE(r.findings.at(0).starts_with("no GPU timeline (cupti-python is not installed)"));
}

// GPU work launched outside every timed call by a thread of the candidate's (work done before
// the window, or beside it) rejects, as work escaping the timed stream.
TEST(ClassifyTest, GpuWorkOutsideTheTimedCallsRejects) {
  json facts = test_facts::CorrectFacts(0.5, 1.5);  // 20 runs of 500 us: 10 ms of GPU time.
  facts["timing"]["gpu_outside_us"] = 0.5;          // Below the floor: CUPTI's rounding.
  facts["timing"]["gpu_outside_records"] = 1;
  EXPECT_EQ(ClassifyFacts(facts).verdict, Verdict::kCorrect);
  facts["timing"]["gpu_outside_us"] = 2000.0;
  facts["timing"]["gpu_outside_records"] = 20;
  const EvalResult r = ClassifyFacts(facts);
  EXPECT_EQ(r.verdict, Verdict::kRejected);
  EXPECT_EQ(r.check, "stream_escape");
  EXPECT_TRUE(
      r.reason.starts_with("20 GPU records ran 2000 us of work launched outside every "
                           "timed call"))
      << r.reason;
  EXPECT_EQ(ClassifyFacts(facts, PaperProfile()).verdict, Verdict::kRejected);
}

TEST(ClassifyTest, BothScopesAreReportedAndTheProfileSaysWhichTheSpeedupUses) {
  json facts = test_facts::CorrectFacts(0.5, 1.5);  // 3x in the timed calls.
  facts["kernel_trace"] = {{"kernels", {{{"name", "my_kernel"}, {"kind", "own"}}}},
                           {"own_us", 100.0},
                           {"pytorch_us", 0.0},
                           {"busy_us", 100.0}};
  facts["reference_trace"] = {{"kernels", json::array()}, {"busy_us", 400.0}};
  EvalProfile call = StrictProfile();
  call.speedup_scope = TimingScope::kCall;
  EvalResult r = ClassifyFacts(facts, call);
  EXPECT_EQ(r.scope, TimingScope::kCall);
  EXPECT_DOUBLE_EQ(*r.speedup, 3.0);
  EXPECT_DOUBLE_EQ(*r.speedup_kernel, 4.0);
  EXPECT_DOUBLE_EQ(*r.candidate_kernel_us, 100.0);
  const json j = ToJson(r);
  EXPECT_EQ(j["scope"], "call");
  EXPECT_DOUBLE_EQ(j["speedup_kernel"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(j["timing"]["reference_kernel_us"].get<double>(), 400.0);
  const EvalResult back = EvalResultFromJson(j);
  EXPECT_EQ(back.scope, TimingScope::kCall);
  EXPECT_DOUBLE_EQ(*back.speedup_kernel, 4.0);
  EXPECT_DOUBLE_EQ(*back.reference_kernel_us, 400.0);

  EvalProfile kernel = StrictProfile();
  kernel.speedup_scope = TimingScope::kKernel;
  // The kernel scope does not rest on the timed series, so their noise withholds nothing.
  for (int i = 0; i < 20; ++i) {
    facts["timing"]["candidate_ms"][i] = 0.2 + 0.1 * i;
  }
  r = ClassifyFacts(facts, kernel);
  EXPECT_EQ(r.scope, TimingScope::kKernel);
  EXPECT_DOUBLE_EQ(*r.speedup, 4.0);
  EXPECT_FALSE(r.timing_unsettled);
  EXPECT_EQ(ToJson(r)["scope"], "kernel");
  // No trace (a CPU): no kernel-scope figure, and the result says why.
  facts.erase("reference_trace");
  r = ClassifyFacts(facts, kernel);
  EXPECT_EQ(r.verdict, Verdict::kCorrect);
  EXPECT_FALSE(r.speedup.has_value());
  EXPECT_FALSE(r.speedup_kernel.has_value());
  ASSERT_EQ(r.findings.size(), 1U);
  EXPECT_TRUE(r.findings[0].starts_with("no kernel time for both sides")) << r.findings[0];
}

TEST(ClassifyTest, RunsWhoseHostOutlastedTheHeadStartAreSaid) {
  json facts = test_facts::CorrectFacts(0.5, 1.5);
  EvalProfile call = StrictProfile();
  call.speedup_scope = TimingScope::kCall;
  EXPECT_TRUE(ClassifyFacts(facts, call).findings.empty());
  // Two late runs left out while the head start grew, one kept at its cap.
  facts["timing"]["host_late_runs"] = 3;
  facts["timing"]["host_late_dropped"] = 2;
  facts["timing"]["head_start_us"] = 4000.0;
  const EvalResult r = ClassifyFacts(facts, call);
  EXPECT_EQ(r.verdict, Verdict::kCorrect);
  EXPECT_DOUBLE_EQ(*r.speedup, 3.0);  // Findings only: the figure stands.
  ASSERT_EQ(r.findings.size(), 2U);
  EXPECT_TRUE(
      r.findings[0].starts_with("in 1 runs (warm-ups and both sides counted) the host was still "
                                "launching the call when the GPU's head start of 4000 us ended"))
      << r.findings[0];
  EXPECT_EQ(r.findings[1],
            "2 late runs were not kept (nor the other side's run beside each): the host "
            "outlasted the head start, which grew to 4000 us");
  // A speedup in kernel time does not rest on the timed runs: nothing said of them.
  EvalProfile kernel = StrictProfile();
  kernel.speedup_scope = TimingScope::kKernel;
  EXPECT_TRUE(ClassifyFacts(facts, kernel).findings.size() == 1U &&
              ClassifyFacts(facts, kernel).findings[0].starts_with("no kernel time"));
  // Nor in GPU time (strict's), whose runs' host is said only where it dominates.
  EXPECT_TRUE(ClassifyFacts(facts).findings.empty());
  // A CPU's timing means nothing: nothing said.
  facts["timing"]["meaningful"] = false;
  EXPECT_TRUE(ClassifyFacts(facts).findings.empty());
}

TEST(ClassifyTest, ATaskWhoseCallMakesItsInputsIsComparedOnTheOperatorsKernelTime) {
  // A TritonBench-G test: the timed calls are mostly its input creation (1.0x), the traced
  // operator's kernels 20 us against the reference's 40 us; both setups launched 4 randn kernels.
  // The call scope (paper's): the GPU scope's own figures are the next test's.
  EvalProfile call = StrictProfile();
  call.speedup_scope = TimingScope::kCall;
  json facts = test_facts::CorrectFacts(1.0, 1.0);
  const auto trace = [](double busy, double op, int opened, int traced) {
    return json{{"kernels", json::array()},
                {"busy_us", busy},
                {"operator_us", op},
                {"setup_ranges", {{"opened", opened}, {"traced", traced}, {"intact", true}}},
                {"setup_kernels", {{"normal_kernel", 4}}}};
  };
  facts["kernel_trace"] = trace(420.0, 20.0, 9, 9);
  facts["reference_trace"] = trace(440.0, 40.0, 9, 9);
  EvalResult r = ClassifyFacts(facts, call);
  EXPECT_EQ(r.scope, TimingScope::kKernel);
  EXPECT_DOUBLE_EQ(*r.speedup, 2.0);
  EXPECT_DOUBLE_EQ(*r.candidate_kernel_us, 20.0);
  ASSERT_EQ(r.findings.size(), 1U);
  EXPECT_TRUE(r.findings[0].starts_with("the task's call makes its own inputs")) << r.findings[0];
  EXPECT_DOUBLE_EQ(r.candidate_timing->median_ms, 1.0);  // The call's timing stays.
  // Whatever breaks the operator's figures on either side, both sides' whole calls are compared
  // (440 / 420), never one side's operator against the other's whole call.
  const auto whole_calls = [&](const json& broken, const std::string& why) {
    const EvalResult w = ClassifyFacts(broken, call);
    EXPECT_DOUBLE_EQ(*w.candidate_kernel_us, 420.0) << why;
    EXPECT_DOUBLE_EQ(*w.reference_kernel_us, 440.0) << why;
    ASSERT_EQ(w.findings.size(), 2U) << why;
    EXPECT_TRUE(w.findings[1].starts_with(why)) << w.findings[1];
  };
  json forged = facts;  // A setup range the harness did not open.
  forged["kernel_trace"]["setup_ranges"]["traced"] = 10;
  whole_calls(forged, "the candidate's trace holds 10 setup ranges where the harness opened 9");
  forged = facts;  // A range forged during the reference's call, in the candidate's process.
  forged["reference_trace"]["setup_ranges"]["traced"] = 10;
  whole_calls(forged, "the reference's trace holds 10 setup ranges where the harness opened 9");
  json hidden = facts;  // The candidate's own work run inside the test's setup.
  hidden["kernel_trace"]["setup_kernels"]["at::native::gemm"] = 1;
  whole_calls(hidden, "the candidate's setup launched other kernels than the reference's");
  json rebound = facts;  // torch.Tensor's attributes changed during the call.
  rebound["kernel_trace"]["setup_ranges"]["intact"] = false;
  whole_calls(rebound, "torch.Tensor's attributes changed during the candidate's traced call");
  // A task without setup marks keeps the profile's scope.
  json unmarked = facts;
  unmarked["kernel_trace"].erase("operator_us");
  EXPECT_EQ(ClassifyFacts(unmarked, call).scope, TimingScope::kCall);

  // The test's torch.randn is PyTorch's kernel, launched in a setup range: not the candidate's
  // PyTorch compute, even where the profile forbids that.
  EvalProfile forbidden = call;
  forbidden.pytorch_compute = PytorchCompute::kForbidden;
  facts["kernel_trace"]["own_us"] = 20.0;
  facts["kernel_trace"]["pytorch_us"] = 400.0;
  facts["kernel_trace"]["setup_kernel_us"] = {{"own", 0.0}, {"pytorch", 400.0}, {"neutral", 0.0}};
  EXPECT_EQ(ClassifyFacts(facts, forbidden).verdict, Verdict::kCorrect);
  // With a forged range the whole call is judged: 95% PyTorch.
  facts["kernel_trace"]["setup_ranges"]["traced"] = 10;
  const EvalResult rejected = ClassifyFacts(facts, forbidden);
  EXPECT_EQ(rejected.verdict, Verdict::kRejected);
  EXPECT_EQ(rejected.check, "kernel_trace");
}

json JudgedTrial(int index, bool passed);  // facts.judge's trials, below.

TEST(ClassifyTest, ATaskWhoseCallMakesItsInputsIsComparedOnTheOperatorsGpuTimeInEachRun) {
  // The same test under strict: each timed run's operator GPU time (20 us against 40 us), the
  // test's setup calls left out; the traced call says 25 against 40.
  json facts = test_facts::CorrectFacts(1.0, 1.0);
  const auto trace = [](double op) {
    return json{{"kernels", json::array()},
                {"busy_us", 420.0},
                {"operator_us", op},
                {"setup_ranges", {{"opened", 9}, {"traced", 9}, {"intact", true}}},
                {"setup_kernels", {{"normal_kernel", 4}}}};
  };
  facts["kernel_trace"] = trace(25.0);
  facts["reference_trace"] = trace(40.0);
  facts["timing"]["candidate_host_ms"] = Series(1.2);  // The test's host time: no finding.
  facts["timing"]["candidate_operator_gpu_ms"] = Series(0.020);
  facts["timing"]["reference_operator_gpu_ms"] = Series(0.040);
  facts["timing"]["gpu_setup"] = {{"intact", true},
                                  {"candidate_kernels", {{"normal_kernel", 80}}},
                                  {"reference_kernels", {{"normal_kernel", 80}}}};
  EvalResult r = ClassifyFacts(facts);
  EXPECT_EQ(r.scope, TimingScope::kGpu);
  EXPECT_DOUBLE_EQ(*r.speedup, 2.0);
  EXPECT_DOUBLE_EQ(*r.speedup_kernel, 1.6);  // The traced call's, beside it.
  EXPECT_DOUBLE_EQ(r.candidate_gpu_timing->median_ms, 0.020);
  EXPECT_DOUBLE_EQ(r.candidate_timing->median_ms, 1.0);  // The whole calls' stay.
  ASSERT_EQ(r.findings.size(), 1U) << r.findings[1];
  EXPECT_TRUE(
      r.findings[0].starts_with("the task's call makes its own inputs (a TritonBench-G "
                                "test): the speedup compares the operator's GPU time"))
      << r.findings[0];
  // Whatever breaks the operator's GPU figures, the traced call's kernel time is compared.
  const auto traced = [&](const json& broken, const std::string& why) {
    const EvalResult t = ClassifyFacts(broken);
    EXPECT_EQ(t.scope, TimingScope::kKernel) << why;
    EXPECT_DOUBLE_EQ(*t.speedup, 1.6) << why;
    ASSERT_FALSE(t.findings.empty()) << why;
    EXPECT_TRUE(t.findings[0].starts_with(why)) << t.findings[0];
  };
  json hidden = facts;  // The candidate's work run inside the test's setup calls.
  hidden["timing"]["gpu_setup"]["candidate_kernels"]["gemm"] = 20;
  traced(hidden, "the candidate's setup calls launched gemm other than the reference's");
  json fewer = facts;  // Per run the same: 4 launches a run, whatever the runs kept.
  fewer["timing"]["candidate_operator_gpu_ms"] = Series(0.020, 10);
  fewer["timing"]["gpu_setup"]["candidate_kernels"]["normal_kernel"] = 40;
  EXPECT_EQ(ClassifyFacts(fewer).scope, TimingScope::kGpu);
  json rebound = facts;
  rebound["timing"]["gpu_setup"]["intact"] = false;
  traced(rebound, "torch's callables changed during the timed runs");
  json empty = facts;  // A run whose operator launched nothing on the GPU.
  empty["timing"]["candidate_operator_gpu_ms"][3] = nullptr;
  traced(empty, "1 of the candidate's 20 timed runs launched no GPU work of the operator's");
  json unmarked = facts;
  unmarked["timing"].erase("gpu_setup");
  traced(unmarked, "the timed runs noted no setup calls of the test");
  // The reference's operator slowed beside the candidate: its clean timing is compared.
  json judged = facts;
  judged["judge"] = {{"references", "sealed"},
                     {"trials", {JudgedTrial(0, true), JudgedTrial(1, true)}},
                     {"reference_timing",
                      {{"reference_ms", Series(1.0)},
                       {"reference_gpu_ms", Series(1.0)},
                       {"reference_operator_gpu_ms", Series(0.030)}}}};
  r = ClassifyFacts(judged);
  EXPECT_DOUBLE_EQ(*r.speedup, 1.5);  // 0.030 / 0.020.
  ASSERT_EQ(r.findings.size(), 2U);
  EXPECT_NE(r.findings[0].find("operator's GPU time 0.04 ms against 0.03 ms"), std::string::npos)
      << r.findings[0];
}

TEST(ClassifyTest, StaticFindingsRejectInStrictAfterLoadFailures) {
  const json findings = {
      {"parsed", true},
      {"findings", {{{"rule", "streams"}, {"line", 12}, {"text", "torch.cuda.Stream()"}}}}};
  EvalResult r =
      ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"static", findings}});
  EXPECT_EQ(r.verdict, Verdict::kRejected);
  EXPECT_EQ(r.check, "streams");
  EXPECT_EQ(r.reason,
            "static check 'streams' at line 12: `torch.cuda.Stream()`: work on other CUDA "
            "streams can escape the timed stream");
  // Even a candidate that then crashed is rejected for what its source shows...
  EXPECT_EQ(ClassifyFacts({{"status", "crash"}, {"static", findings}}).verdict, Verdict::kRejected);
  // ...but one that does not load is a compile error, and the release's check does not look.
  EXPECT_EQ(ClassifyFacts({{"status", "import_error"}, {"static", findings}}).verdict,
            Verdict::kCompileError);
  EXPECT_EQ(ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"static", findings}},
                          ReferenceProfile())
                .verdict,
            Verdict::kCorrect);
}

TEST(ClassifyTest, ATryExceptIsAFindingAndASwallowedExceptionRejects) {
  const json findings = {{"parsed", true},
                         {"findings", {{{"rule", "try_except"}, {"line", 12}, {"text", "try:"}}}}};
  EvalResult r =
      ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"static", findings}});
  EXPECT_EQ(r.verdict, Verdict::kCorrect);
  EXPECT_EQ(r.findings, std::vector<std::string>{"try_except at line 12: `try:`"});
  const json swallowed = {{{"line", 14},
                           {"type", "CompilationError"},
                           {"message", "at 3:4: tl.dot needs 2-D blocks\nmore"},
                           {"during", "trial 0"},
                           {"count", 5}}};
  for (const EvalProfile& profile : {StrictProfile(), PaperProfile()}) {
    r = ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"swallowed", swallowed}},
                      profile);
    EXPECT_EQ(r.verdict, Verdict::kRejected) << profile.name;
    EXPECT_EQ(r.check, "swallowed_exception");
    EXPECT_EQ(r.reason,
              "the candidate's handler at line 14 swallowed CompilationError: at 3:4: tl.dot "
              "needs 2-D blocks during trial 0 (5 call(s)): a fallback hides a kernel that "
              "failed; let the kernel fail");
  }
  EXPECT_EQ(
      ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"swallowed", swallowed}},
                    ReferenceProfile())
          .verdict,
      Verdict::kCorrect);
  // A call that failed is judged by its failure.
  EXPECT_EQ(ClassifyFacts({{"status", "forward_error"}, {"swallowed", swallowed}}).verdict,
            Verdict::kRuntimeError);
}

TEST(ClassifyTest, AFailedIntegrityTrialIsIncorrectAndSaysWhy) {
  json trial = PassingTrial(5);
  trial["passed"] = false;
  trial["integrity"] = true;
  trial["distribution"] = "normal";
  trial["outputs"][0]["values"] = {{"passed", false}, {"violations", 40}, {"numel", 100}};
  EvalResult r =
      ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0), trial}}}, PaperProfile());
  EXPECT_EQ(r.verdict, Verdict::kIncorrect);
  EXPECT_EQ(r.reason,
            "trial 5 (normal inputs): 40 of 100 elements outside tolerance; an integrity trial: "
            "the profile's own trials use the task's inputs, and the kernel is wrong on others "
            "of the same magnitude");
}

TEST(ClassifyTest, ReducedPrecisionWithinALooseToleranceIsAFinding) {
  json trial = PassingTrial(0);
  trial["outputs"][0]["values"]["max_abs_err"] = 3e-3;
  trial["outputs"][0]["values"]["ref_max_abs"] = 1.0;
  const json facts = {{"status", "ok"}, {"trials", {trial}}, {"timing", Timing(0.5, 1.5)}};
  EvalResult paper = ClassifyFacts(facts, PaperProfile());
  EXPECT_EQ(paper.verdict, Verdict::kCorrect);
  ASSERT_EQ(paper.findings.size(), 1U);
  EXPECT_EQ(paper.findings[0],
            "less accurate than strict admits: relative error 0.003 (max |out - ref| / max "
            "|ref| over the trials) is within this profile's tolerance (0.05) and above "
            "strict's (0.0001): reduced precision or an approximation");
  // An fp32-accurate kernel has no such finding.
  json accurate = facts;
  accurate["trials"][0]["outputs"][0]["values"]["max_abs_err"] = 1e-6;
  EXPECT_TRUE(ClassifyFacts(accurate, PaperProfile()).findings.empty());
}

TEST(ClassifyTest, TimedOutputsLessAccurateThanTheCheckedOnesReject) {
  // PassingTrial's output: max_abs_err over ref_max_abs.
  const json trial = PassingTrial(0);
  const json values = trial["outputs"][0]["values"];
  const double checked = values["max_abs_err"].get<double>() / values["ref_max_abs"].get<double>();
  json timing = Timing(0.5, 1.5);
  timing["revalidated_relative_error"] = 1e-3;
  const json facts = {{"status", "ok"}, {"trials", {trial}}, {"timing", timing}};
  ASSERT_LT(20 * std::max(checked, 1e-5), 1e-3);
  EvalResult r = ClassifyFacts(facts);
  EXPECT_EQ(r.verdict, Verdict::kRejected);
  EXPECT_EQ(r.check, "timed_accuracy");
  EXPECT_NE(r.reason.find("computes less accurately when timed"), std::string::npos) << r.reason;
  EXPECT_EQ(ClassifyFacts(facts, PaperProfile()).verdict, Verdict::kRejected);
  EXPECT_EQ(ClassifyFacts(facts, ReferenceProfile()).verdict, Verdict::kCorrect);
  // Rounding that varies with the values, within the factor and the floor, is no drift; nor is
  // the task-precision reference's own distance from exact.
  json honest = facts;
  honest["timing"]["revalidated_relative_error"] = 1.5e-4;
  EXPECT_EQ(ClassifyFacts(honest).verdict, Verdict::kCorrect);
  json imprecise_reference = facts;
  imprecise_reference["reference"] = {{"self_error", {1e-4}}};
  EXPECT_EQ(ClassifyFacts(imprecise_reference).verdict, Verdict::kCorrect);
  // Timed runs get the task's inputs: a later integrity trial's error (where the kernel had
  // already turned to fp16) does not excuse them.
  json late = facts;
  json integrity = PassingTrial(5);
  integrity["integrity"] = true;
  integrity["distribution"] = "normal";
  integrity["outputs"][0]["values"]["max_abs_err"] = 2e-3;
  late["trials"].push_back(integrity);
  EXPECT_EQ(ClassifyFacts(late, PaperProfile()).check, "timed_accuracy");
  // A bfloat16 output (a FlashInfer-Trace definition's): a step of its rounding is no drift, a
  // turn to float8 precision is.
  json bf16 = facts;
  bf16["reference"] = {{"outputs", {{{"shape", {16, 4096}}, {"dtype", "bfloat16"}}}}};
  bf16["timing"]["revalidated_relative_error"] = 2.4e-3;  // Seen on the H200 (rmsnorm_h4096).
  EXPECT_EQ(ClassifyFacts(bf16).verdict, Verdict::kCorrect);
  bf16["timing"]["revalidated_relative_error"] = 0.06;
  EXPECT_EQ(ClassifyFacts(bf16).check, "timed_accuracy");
}

TEST(ClassifyTest, ACallWithoutALaunchOfItsOwnRejects) {
  json launches = {{"kernels", json::object()}, {"extension_calls", json::object()},
                   {"extensions_built", 0},     {"calls", 6},
                   {"calls_without_own", 6},    {"first_without_own", "trial 0"},
                   {"complete", true},          {"autotune", json::array()}};
  EvalResult r =
      ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"launches", launches}});
  EXPECT_EQ(r.verdict, Verdict::kRejected);
  EXPECT_EQ(r.check, "own_launches");
  EXPECT_NE(r.reason.find("no call launched a kernel of the candidate's own (6 calls"),
            std::string::npos)
      << r.reason;
  launches["kernels"] = {{"relu_kernel", 4}};
  launches["calls_without_own"] = 2;
  launches["first_without_own"] = "trial 3";
  r = ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"launches", launches}});
  EXPECT_NE(r.reason.find("2 of 6 calls launched no kernel of the candidate's own, the first in "
                          "trial 3"),
            std::string::npos)
      << r.reason;
  // Counts that may miss launches decide nothing; nor do runs that allow pure PyTorch.
  launches["complete"] = false;
  EXPECT_EQ(ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"launches", launches}})
                .verdict,
            Verdict::kCorrect);
  launches["complete"] = true;
  EvalProfile unrestricted = StrictProfile();
  unrestricted.pytorch_compute = PytorchCompute::kUnrestricted;
  EXPECT_EQ(ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"launches", launches}},
                          unrestricted)
                .verdict,
            Verdict::kCorrect);
  // The interpreter's choice for an autotuned kernel is said in the result.
  launches["calls_without_own"] = 0;
  launches["autotune"] = {
      {{"kernel", "k"}, {"configs", 3}, {"chosen", "BLOCK: 64"}, {"how", "first config taken"}}};
  r = ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"launches", launches}});
  EXPECT_EQ(r.verdict, Verdict::kCorrect);
  EXPECT_EQ(r.findings,
            std::vector<std::string>{"autotune k: BLOCK: 64 of 3 configs, first config taken"});
}

TEST(ClassifyTest, PatchedFunctionsAreRejected) {
  EvalResult r = ClassifyFacts(
      {{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"patched", {"time.perf_counter"}}});
  EXPECT_EQ(r.verdict, Verdict::kRejected);
  EXPECT_NE(r.reason.find("must not be patched"), std::string::npos);
}

TEST(ClassifyTest, AKernelRegisteredForTorchsOwnOperatorIsRejected) {
  EvalResult r = ClassifyFacts(
      {{"status", "ok"},
       {"trials", {PassingTrial(0)}},
       {"dispatcher_overrides", {"aten::relu: CPU: registered at payload.py:9 :: (none)"}}});
  EXPECT_EQ(r.verdict, Verdict::kRejected);
  EXPECT_EQ(r.check, "dispatcher_override");
  EXPECT_NE(r.reason.find("aten::relu: CPU: registered at payload.py:9"), std::string::npos)
      << r.reason;
}

// facts.judge: the outputs as a process that never ran candidate code compared them. Its values
// replace the evaluation process's claims; a trial it never saw is a forged result; its failure
// is the harness's.
json JudgedTrial(int index, bool passed) {
  return {{"index", index},
          {"passed", passed},
          {"problems", json::array()},
          {"outputs",
           {{{"passed", passed},
             {"violations", passed ? 0 : 7785},
             {"numel", 16000},
             {"max_abs_err", passed ? 0.0 : 0.0377},
             {"ref_max_abs", 3.87}}}}};
}

TEST(ClassifyTest, TheJudgesValuesDecideTheTrials) {
  json facts = test_facts::CorrectFacts(0.5, 1.5);
  facts["judge"] = {{"references", "sealed"},
                    {"trials", {JudgedTrial(0, true), JudgedTrial(1, true)}}};
  EvalResult r = ClassifyFacts(facts);
  EXPECT_EQ(r.verdict, Verdict::kCorrect) << r.reason;
  EXPECT_DOUBLE_EQ(*r.max_abs_err, 0.0);  // The judge's figure, not the claim's 1e-7.

  // The evaluation process said both passed (its references rewritten in its memory, say).
  facts["judge"]["trials"][1] = JudgedTrial(1, false);
  r = ClassifyFacts(facts);
  EXPECT_EQ(r.verdict, Verdict::kIncorrect);
  EXPECT_NE(r.reason.find("trial 1 (task inputs): 7785 of 16000 elements outside tolerance"),
            std::string::npos)
      << r.reason;

  // An output the child found not to be a tensor stays its rejection, whatever the judge says.
  json proxy = facts;
  proxy["trials"][1]["passed"] = false;
  proxy["trials"][1]["outputs"][0]["form"] = {
      {"exact_tensor", false}, {"problems", {"output is a Proxy, not a torch.Tensor"}}};
  proxy["judge"]["trials"][1]["problems"] = {"an output is not a tensor"};
  r = ClassifyFacts(proxy);
  EXPECT_EQ(r.verdict, Verdict::kRejected);
  EXPECT_EQ(r.check, "output_form");

  facts["judge"]["trials"].erase(1);  // A result for a trial whose outputs were never recorded.
  r = ClassifyFacts(facts);
  EXPECT_EQ(r.verdict, Verdict::kRejected);
  EXPECT_EQ(r.check, "forged_result");
  EXPECT_NE(r.reason.find("trial 1: the evaluation process reported it"), std::string::npos)
      << r.reason;

  facts["judge"] = {{"references", "sealed"}, {"trials", json::array()}, {"error", "MemoryError"}};
  r = ClassifyFacts(facts);
  EXPECT_EQ(r.verdict, Verdict::kError);
  EXPECT_NE(r.reason.find("MemoryError"), std::string::npos) << r.reason;

  facts["judge"] = {{"references", "unsealed"}, {"trials", json::array()}};  // Too large to seal.
  r = ClassifyFacts(facts);
  EXPECT_EQ(r.verdict, Verdict::kCorrect) << r.reason;
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_NE(r.findings[0].find("compared in the candidate's own process"), std::string::npos);

  // A judge that could not take a protection (no Landlock in this kernel) is said, not hidden.
  facts["judge"] = {{"references", "sealed"},
                    {"trials", {JudgedTrial(0, true), JudgedTrial(1, true)}},
                    {"unconfined", {"landlock: OSError: not available"}},
                    {"reference_timing", {{"reference_ms", facts["timing"]["reference_ms"]}}}};
  r = ClassifyFacts(facts);
  EXPECT_EQ(r.verdict, Verdict::kCorrect) << r.reason;
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0], "judge: ran without landlock: OSError: not available");
}

// The determinism rerun as the judge compared it with trial 0: its figures replace the child's,
// and a rerun the child reports whose outputs never reached the judge is not the harness's.
TEST(ClassifyTest, TheJudgeDecidesTheDeterminismRerun) {
  json facts = test_facts::CorrectFacts(0.5, 1.5);
  facts["determinism"] = {{"passed", true}, {"special_mismatch", false}, {"max_abs_diff", 0.0}};
  facts["judge"] = {
      {"references", "sealed"},
      {"trials", {JudgedTrial(0, true), JudgedTrial(1, true)}},
      {"determinism", {{"passed", false}, {"special_mismatch", false}, {"max_abs_diff", 0.25}}}};
  EvalResult r = ClassifyFacts(facts);
  EXPECT_EQ(r.verdict, Verdict::kIncorrect);
  EXPECT_NE(r.reason.find("differ by up to 0.25"), std::string::npos) << r.reason;

  facts["judge"]["determinism"]["passed"] = true;
  EXPECT_EQ(ClassifyFacts(facts).verdict, Verdict::kCorrect);

  facts["judge"].erase("determinism");
  r = ClassifyFacts(facts);
  EXPECT_EQ(r.verdict, Verdict::kRejected);
  EXPECT_EQ(r.check, "forged_result");
  EXPECT_NE(r.reason.find("determinism rerun whose outputs never reached the judge"),
            std::string::npos)
      << r.reason;

  facts.erase("determinism");  // No rerun reported (the child's trial 0 failed): none expected.
  EXPECT_EQ(ClassifyFacts(facts).verdict, Verdict::kCorrect);
}

// The reference timed in a process that never imported a candidate (clean_reference_timing),
// against its runs beside the candidate: a candidate that slowed the reference there gains
// nothing; the GPU's own drift, within 3% or the medians' noise, leaves the runs beside it.
TEST(ClassifyTest, AReferenceSlowedBesideTheCandidateIsComparedByItsCleanTiming) {
  json facts = test_facts::CorrectFacts(0.5, 1.5);  // 3x, in GPU time and call time alike.
  json clean = {{"reference_ms", json::array()}, {"reference_gpu_ms", json::array()}};
  for (int i = 0; i < 20; ++i) {
    clean["reference_ms"].push_back(0.75);
    clean["reference_gpu_ms"].push_back(0.75);
  }
  facts["judge"] = {{"references", "sealed"},
                    {"trials", {JudgedTrial(0, true), JudgedTrial(1, true)}},
                    {"reference_timing", clean}};
  EvalResult r = ClassifyFacts(facts);
  EXPECT_EQ(r.verdict, Verdict::kCorrect) << r.reason;
  EXPECT_DOUBLE_EQ(*r.speedup, 1.5);  // 0.75 / 0.5, not the 3x of a reference slowed to 1.5 ms.
  EXPECT_DOUBLE_EQ(*r.speedup_call, 1.5);
  EXPECT_DOUBLE_EQ(r.reference_gpu_timing->median_ms, 0.75);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0],
            "the reference ran slower beside the candidate than in a process that never "
            "imported it (call time 1.5 ms against 0.75 ms; GPU time 1.5 ms against 0.75 ms): "
            "the speedup is over the clean timing");

  // Within 3% (the GPU's drift since the clean timing), or faster beside the candidate: the
  // runs beside it stand, whichever way the clocks went.
  for (double alone : {1.47, 2.0}) {
    for (auto& v : clean["reference_ms"]) {
      v = alone;
    }
    for (auto& v : clean["reference_gpu_ms"]) {
      v = alone;
    }
    facts["judge"]["reference_timing"] = clean;
    r = ClassifyFacts(facts);
    EXPECT_DOUBLE_EQ(*r.speedup, 3.0) << alone;
    EXPECT_TRUE(r.findings.empty()) << r.findings[0];
  }

  // No clean timing reached the judge: said. The release's profiles time no clean reference.
  facts["judge"].erase("reference_timing");
  r = ClassifyFacts(facts);
  EXPECT_DOUBLE_EQ(*r.speedup, 3.0);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_TRUE(r.findings[0].starts_with("the reference was timed only in the candidate's process"))
      << r.findings[0];
  EXPECT_FALSE(ProfileByName("reference")->job.clean_reference_timing);
  EXPECT_TRUE(ProfileByName("paper")->job.clean_reference_timing);
}

TEST(ClassifyTest, RuntimeFindingsReject) {
  EvalResult r =
      ClassifyFacts({{"status", "ok"},
                     {"trials", {PassingTrial(0)}},
                     {"runtime_findings",
                      {{{"rule", "harness_access"}, {"line", 7}, {"text", "sys._getframe"}}}}});
  EXPECT_EQ(r.verdict, Verdict::kRejected);
  EXPECT_NE(r.reason.find("runtime check 'harness_access': sys._getframe (candidate line 7)"),
            std::string::npos)
      << r.reason;
  EXPECT_EQ(ClassifyFacts(
                {{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"os_threads_left_running", 1}})
                .verdict,
            Verdict::kRejected);
}

TEST(ClassifyTest, ThreadsLeftRunningAreRejected) {
  EvalResult r = ClassifyFacts(
      {{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"threads_left_running", {"late-work"}}});
  EXPECT_EQ(r.verdict, Verdict::kRejected);
  EXPECT_NE(r.reason.find("late-work"), std::string::npos);
}

TEST(ClassifyTest, DegenerateTasksAreFlaggedWhateverTheVerdict) {
  const json nulls = {{"zeros", true}, {"constant", false}, {"identity", true}};
  EvalResult r =
      ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"null_kernels", nulls}});
  EXPECT_EQ(r.verdict, Verdict::kCorrect);
  EXPECT_EQ(r.degenerate, (std::vector<std::string>{"identity", "zeros"}));
  EXPECT_EQ(ClassifyFacts({{"status", "forward_error"}, {"null_kernels", nulls}}).degenerate.size(),
            2u);
}

// A hardware profile as the worker sends it: one own kernel of 2 ms in a call of 2.1 ms, at
// these fractions of DRAM and SM peak, with the kernel's `extra` figures.
json NcuProfile(double dram, double sm, const json& extra = json::object()) {
  json kernel = {{"name", "k"},
                 {"duration_us", 2000},
                 {"dram_fraction", dram},
                 {"sm_fraction", sm},
                 {"own", true}};
  kernel.update(extra);
  return {{"tool", "ncu"}, {"call_us", 2100}, {"kernels", {kernel}}};
}

TEST(ClassifyTest, ACorrectKernelGetsItsSpeedOfLightFractionAndItsBottleneck) {
  const DeviceCeilings h200{.copy_bytes_per_s = 4e12, .bf16_flops_per_s = 8e14};
  json facts = {{"status", "ok"},
                {"trials", {PassingTrial(0)}},
                {"roofline", {{"io_bytes", 4e9}}},
                {"timing", Timing(2.0, 4.0)}};
  EvalResult unprofiled;
  Classify(facts, StrictProfile(), unprofiled, &h200);
  ASSERT_EQ(unprofiled.verdict, Verdict::kCorrect);
  ASSERT_TRUE(unprofiled.sol_fraction);
  EXPECT_DOUBLE_EQ(*unprofiled.sol_fraction, 0.5);  // 1 ms of bytes at peak over 2 ms.
  EXPECT_EQ(unprofiled.bottleneck, "");
  EXPECT_EQ(unprofiled.profile_unavailable, "not profiled: a search profiles each task's new best");
  facts["profile"] = NcuProfile(
      0.45, 0.2,
      {{"achieved_occupancy", 0.25}, {"occupancy_limiter", "registers"}, {"l2_hit_rate", 0.4}});
  EvalResult r;
  Classify(facts, StrictProfile(), r, &h200);
  EXPECT_EQ(r.verdict, Verdict::kCorrect);
  EXPECT_EQ(r.bottleneck, "latency_bound");
  EXPECT_EQ(r.profile_text,
            "latency-bound: neither memory (45% of DRAM peak) nor compute (20% of SM peak) is "
            "busy; occupancy 25%, limited by registers");
  EXPECT_EQ(r.profile_unavailable, "");
  const EvalResult back = EvalResultFromJson(ToJson(r));  // The run database keeps them.
  EXPECT_EQ(back.bottleneck, r.bottleneck);
  EXPECT_EQ(back.profile_text, r.profile_text);
  EXPECT_EQ(back.sol_fraction, r.sol_fraction);
  // A worker that could not profile says why; the result says it too.
  facts["profile"] = {{"unavailable", "ncu is not installed"}};
  EvalResult none;
  Classify(facts, StrictProfile(), none, &h200);
  EXPECT_EQ(none.profile_unavailable, "ncu is not installed");
  // On the CPU: no bound, no profile, and why.
  facts["timing"]["meaningful"] = false;
  EvalResult cpu;
  Classify(facts, StrictProfile(), cpu, nullptr);
  EXPECT_FALSE(cpu.sol_fraction);
  EXPECT_EQ(cpu.profile_unavailable,
            "no GPU: kernels ran in Triton's interpreter, which has no profiler");
}

TEST(ClassifyTest, WithoutAHardwareProfileTheBottleneckIsEstimatedFromTheKernelTrace) {
  // 6.4e9 bytes at 4e12 bytes/s: 1.6 ms, over 2 ms of traced kernel time: 80% of the bandwidth;
  // 8e11 matrix flops over 2 ms at 8e14 flop/s: 50% of the bf16 rate.
  const DeviceCeilings h200{
      .copy_bytes_per_s = 4e12,
      .bf16_flops_per_s = 8e14,
      .sm = {.registers = 65536, .shared_bytes = 233472, .threads = 2048, .sms = 132}};
  // Its kernel's launch as the trace records it: 256 threads of 32 registers, 2^16 blocks.
  const json kernel = {{"name", "k"},          {"kind", "own"},       {"us", 2000},
                       {"launches", 1},        {"registers", 32},     {"shared_bytes", 0},
                       {"block_threads", 256}, {"grid_blocks", 65536}};
  json facts = {{"status", "ok"},
                {"trials", {PassingTrial(0)}},
                {"roofline", {{"io_bytes", 6.4e9}, {"flops", 8e11}}},
                {"timing", Timing(2.1, 4.0)},
                {"kernel_trace",
                 {{"kernels", {kernel}},
                  {"own_us", 2000},
                  {"pytorch_us", 0},
                  {"escaped_us", 0},
                  {"escaped_kernels", 0},
                  {"busy_us", 2000}}}};
  EvalResult r;
  Classify(facts, StrictProfile(), r, &h200);
  ASSERT_EQ(r.verdict, Verdict::kCorrect) << r.reason;
  EXPECT_DOUBLE_EQ(*r.sol_fraction, 0.8);
  EXPECT_EQ(r.bottleneck, "memory_bound");
  EXPECT_EQ(r.profile_text,
            "memory-bound at 80% of DRAM peak (SM 50%); theoretical occupancy 100% (estimated from "
            "the task's "
            "bytes and matrix flops over the traced kernel time, occupancy from the kernels' "
            "registers, shared memory and launch shape; no hardware counters)");
  EXPECT_EQ(r.profile_unavailable, "");
  // The same kernels inside a call of 10 ms: the host's gaps dominate.
  facts["timing"] = Timing(10.0, 12.0);
  EvalResult host;
  Classify(facts, StrictProfile(), host, &h200);
  ASSERT_EQ(host.verdict, Verdict::kCorrect) << host.reason;
  EXPECT_EQ(host.bottleneck, "launch_bound");
  EXPECT_NE(host.profile_text.find("launch-bound: the GPU is busy 20% of the call"),
            std::string::npos)
      << host.profile_text;
  // Neither side busy on a task with matrix work: no estimate (an fp32 GEMM near its own peak
  // reads as a few percent of the bf16 rate), and the result says why.
  facts["roofline"] = {{"io_bytes", 0.8e9}, {"flops", 8e10}};
  facts["timing"] = Timing(2.1, 4.0);
  EvalResult matrix;
  Classify(facts, StrictProfile(), matrix, &h200);
  ASSERT_EQ(matrix.verdict, Verdict::kCorrect) << matrix.reason;
  EXPECT_EQ(matrix.bottleneck, "");
  EXPECT_EQ(matrix.profile_unavailable,
            "not profiled; the kernel trace's estimate cannot tell latency from compute on matrix "
            "work without the kernel's own peak");
  // A float32 task under a profile without TF32, on a device whose fp32 rate was measured: the
  // same flops judged at that rate (4e13 flop/s of 5e13), and the grid of 66 blocks of 384
  // threads with 168 registers each leaves half the SMs without a block.
  DeviceCeilings fp32 = h200;
  fp32.fp32_flops_per_s = 5e13;
  json gemm = facts;
  gemm["reference"] = {{"outputs", {{{"shape", {4096, 4096}}, {"dtype", "float32"}}}},
                       {"self_error", {0.0}}};
  gemm["kernel_trace"]["kernels"][0].update(
      {{"registers", 168}, {"shared_bytes", 188636}, {"block_threads", 384}, {"grid_blocks", 66}});
  EvalResult sgemm;
  Classify(gemm, StrictProfile(), sgemm, &fp32);
  ASSERT_EQ(sgemm.verdict, Verdict::kCorrect) << sgemm.reason;
  EXPECT_EQ(sgemm.bottleneck, "compute_bound");
  EXPECT_NE(sgemm.profile_text.find(
                "compute-bound at 80% of SM peak (DRAM 10%); theoretical occupancy 9%, "
                "limited by the grid (too few blocks to fill every SM)"),
            std::string::npos)
      << sgemm.profile_text;
  // The same with TF32 allowed: the kernels may run at TF32's rate, unmeasured: withheld again.
  EvalProfile tf32 = StrictProfile();
  tf32.job.allow_tf32 = true;
  EvalResult allowed;
  Classify(gemm, tf32, allowed, &fp32);
  EXPECT_EQ(allowed.bottleneck, "");
  EXPECT_EQ(allowed.profile_unavailable, matrix.profile_unavailable);
  // Without matrix work the same figures are latency-bound.
  facts["roofline"] = {{"io_bytes", 0.8e9}, {"flops", 0}};
  EvalResult elementwise;
  Classify(facts, StrictProfile(), elementwise, &h200);
  EXPECT_EQ(elementwise.bottleneck, "latency_bound");
  // A hardware profile, when there is one, wins over the estimate.
  facts["profile"] = NcuProfile(0.3, 0.7);
  EvalResult profiled;
  Classify(facts, StrictProfile(), profiled, &h200);
  EXPECT_EQ(profiled.bottleneck, "compute_bound");
  EXPECT_EQ(profiled.profile_text.find("estimated"), std::string::npos);
}

TEST(ClassifyTest, FasterThanTheSpeedOfLightIsRejected) {
  // 4 GB of inputs and outputs must move at 4 TB/s: at least 1 ms. A 0.01 ms kernel is
  // impossible.
  const DeviceCeilings h200{.copy_bytes_per_s = 4e12, .bf16_flops_per_s = 8e14};
  const json facts = {{"status", "ok"},
                      {"trials", {PassingTrial(0)}},
                      {"roofline", {{"bytes", 8e9}, {"io_bytes", 4e9}, {"flops", 1e15}}},
                      {"timing", Timing(0.01, 2.0)}};
  EvalResult r;
  Classify(facts, StrictProfile(), r, &h200);
  EXPECT_EQ(r.verdict, Verdict::kRejected);
  EXPECT_NE(r.reason.find("faster than the speed of light"), std::string::npos);
  EXPECT_FALSE(r.speedup.has_value());
  ASSERT_TRUE(r.speed_of_light_ms.has_value());
  EXPECT_DOUBLE_EQ(*r.speed_of_light_ms, 1.0);
  // At 0.8 ms it is merely fast (a read-only stream can beat a copy's rate), and neither the
  // reference's flops (1.25 ms at the matrix peak) nor its parameter bytes bind: algebra and
  // parameters reduced at construction can legitimately skip them.
  EvalResult ok;
  Classify({{"status", "ok"},
            {"trials", {PassingTrial(0)}},
            {"roofline", {{"bytes", 8e9}, {"io_bytes", 4e9}, {"flops", 1e15}}},
            {"timing", Timing(0.8, 1.0)}},
           StrictProfile(), ok, &h200);
  EXPECT_EQ(ok.verdict, Verdict::kCorrect);
  EXPECT_DOUBLE_EQ(*ok.speed_of_light_ms, 1.0);
  // Facts without io_bytes (an older worker) give no bound.
  EvalResult old;
  Classify({{"status", "ok"},
            {"trials", {PassingTrial(0)}},
            {"roofline", {{"bytes", 4e9}, {"flops", 0}}},
            {"timing", Timing(0.01, 2.0)}},
           StrictProfile(), old, &h200);
  EXPECT_EQ(old.verdict, Verdict::kCorrect);
  // Without ceilings (CPU) there is no bound.
  EvalResult cpu;
  Classify(facts, StrictProfile(), cpu, nullptr);
  EXPECT_EQ(cpu.verdict, Verdict::kCorrect);
}

TEST(ClassifyTest, NondeterminismBeyondToleranceIsIncorrect) {
  EvalResult r = ClassifyFacts({{"status", "ok"},
                                {"trials", {PassingTrial(0)}},
                                {"determinism", {{"passed", false}, {"max_abs_diff", 0.25}}}});
  EXPECT_EQ(r.verdict, Verdict::kIncorrect);
  EXPECT_NE(r.reason.find("nondeterministic"), std::string::npos);
}

TEST(ClassifyTest, FlagChangesRejectedInAllButTheReleasesCheck) {
  json facts = {{"status", "ok"},
                {"trials", {PassingTrial(0)}},
                {"flags_changed_by_import", {"cuda.matmul.allow_tf32"}}};
  EXPECT_EQ(ClassifyFacts(facts).verdict, Verdict::kRejected);
  EXPECT_EQ(ClassifyFacts(facts, PaperProfile()).verdict, Verdict::kRejected);
  EXPECT_EQ(ClassifyFacts(facts, ReferenceProfile()).verdict, Verdict::kCorrect);
}

TEST(ClassifyTest, TheKernelBenchProfileUsesTheMean) {
  json timing = Timing(1.0, 2.0);
  timing["candidate_ms"][0] = 21.0;  // Twenty runs: the mean moves from 1 to 2, the median not.
  EvalResult r = ClassifyFacts(
      {{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"timing", timing}}, KernelBenchProfile());
  EXPECT_EQ(r.statistic, Statistic::kMean);
  EXPECT_DOUBLE_EQ(*r.speedup, 1.0);
  EXPECT_EQ(StatisticWords(Statistic::kMean), "mean");
}

TEST(ClassifyTest, PaperProfileUsesTheTrimmedMean) {
  json timing = Timing(1.0, 2.0);
  timing["candidate_ms"][0] = 1000.0;  // An outlier the trimmed mean drops.
  EvalResult r = ClassifyFacts(
      {{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"timing", timing}}, PaperProfile());
  EXPECT_EQ(r.statistic, Statistic::kTrimmedMean);
  EXPECT_DOUBLE_EQ(*r.speedup, 2.0);
}

TEST(ClassifyTest, FailureStatusesMapToVerdicts) {
  struct Case {
    json facts;
    Verdict verdict;
    const char* reason_part;
  };
  const json triton = {
      {"type", "CompilationError"}, {"message", "at 3:4: bad"}, {"triton_compile", true}};
  const json ima = {{"type", "AcceleratorError"},
                    {"message", "CUDA error"},
                    {"cuda_error", "illegal memory access"}};
  const std::vector<Case> cases = {
      {{{"status", "task_error"}, {"error", {{"type", "NameError"}, {"message", "x"}}}},
       Verdict::kTaskError,
       "the task itself failed: NameError: x"},
      {{{"status", "import_error"}, {"error", {{"type", "SyntaxError"}, {"message", "bad"}}}},
       Verdict::kCompileError,
       "does not load: SyntaxError: bad"},
      {{{"status", "import_error"}, {"error", {{"type", "NeedsGpu"}, {"message", "load_inline"}}}},
       Verdict::kError,
       "needs a GPU"},
      {{{"status", "forward_error"}, {"error", triton}},
       Verdict::kCompileError,
       "does not compile"},
      {{{"status", "forward_error"}, {"error", ima}},
       Verdict::kRuntimeError,
       "illegal memory access"},
      {{{"status", "init_error"}, {"error", {{"type", "TypeError"}, {"message", "args"}}}},
       Verdict::kRuntimeError,
       "ModelNew(*get_init_inputs()) raised TypeError: args"},
      {{{"status", "timeout"}, {"phase", "check"}}, Verdict::kTimeout, "during check"},
      // Stopped early by the worker, which says why (a kernel that kept the GPU busy).
      {{{"status", "timeout"},
        {"phase", "check"},
        {"message", "stopped during check: its kernels kept the GPU busy for 4.1 s"}},
       Verdict::kTimeout,
       "kept the GPU busy for 4.1 s; its process group was killed"},
      // Before the candidate is imported only the task's code runs: its hang is the task's.
      {{{"status", "timeout"}, {"phase", "reference"}, {"limit_s", 30}},
       Verdict::kTaskError,
       "the task did not load and make its reference outputs within 30 s (stuck during "
       "reference)"},
      {{{"status", "timeout"}, {"phase", "load_task"}}, Verdict::kTaskError, "during load_task"},
      {{{"status", "memory_limit"}, {"memory_limit_mb", 512}}, Verdict::kRuntimeError, "512 MiB"},
      // So is what it needs in memory there (the worker's whole share, at any slot count).
      {{{"status", "memory_limit"}, {"memory_limit_mb", 6144}, {"phase", "reference"}},
       Verdict::kTaskError,
       "the task needs more than 6144 MiB of host memory"},
      {{{"status", "crash"}, {"signal", 11}, {"phase", "check"}}, Verdict::kCrash, "SIGSEGV"},
      {{{"status", "crash"}, {"exit_code", 3}}, Verdict::kCrash, "exit code 3"},
      // A death before the candidate was imported is the harness's: never cached nor rewarded.
      {{{"status", "crash"}, {"exit_code", 70}, {"phase", "reference"}},
       Verdict::kError,
       "during reference, before the candidate's code ran"},
      {{{"status", "protocol_violation"}, {"message", "2 result messages"}},
       Verdict::kRejected,
       "2 result messages"},
      {{{"status", "harness_error"}}, Verdict::kError, "the harness failed"},
      {{{"status", "???"}}, Verdict::kError, "is not a declared status"},
  };
  for (const Case& c : cases) {
    EvalResult r = ClassifyFacts(c.facts);
    EXPECT_EQ(r.verdict, c.verdict) << c.facts.dump();
    EXPECT_NE(r.reason.find(c.reason_part), std::string::npos) << r.reason;
  }
}

TEST(ClassifyTest, MalformedFactsAreAnErrorNotACrash) {
  EXPECT_EQ(ClassifyFacts(json("text")).verdict, Verdict::kError);
  EXPECT_EQ(ClassifyFacts(json::object()).verdict, Verdict::kError);
  EXPECT_EQ(ClassifyFacts({{"status", "ok"}, {"trials", "nope"}}).verdict, Verdict::kError);
  EXPECT_EQ(ClassifyFacts({{"status", "ok"}, {"trials", json::array()}}).verdict, Verdict::kError);
  EXPECT_EQ(ClassifyFacts({{"status", "ok"}, {"trials", {"x", 3}}}).verdict, Verdict::kError);
  // Facts outside the schema are the harness's error, never the candidate's verdict.
  EvalResult r = ClassifyFacts({{"status", "ok"}, {"trials", {PassingTrial(0)}}, {"timing", 3}});
  EXPECT_EQ(r.verdict, Verdict::kError);
  EXPECT_NE(r.reason.find("facts.timing"), std::string::npos) << r.reason;
  EXPECT_FALSE(r.speedup.has_value());
}

}  // namespace
}  // namespace adaexplore
