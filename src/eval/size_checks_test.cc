#include "eval/size_checks.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

EvalResult Correct() {
  EvalResult r;
  r.verdict = Verdict::kCorrect;
  r.speedup = 2.0;
  r.facts = {{"task_sizes", {{"batch_size", 16}, {"dim", 1000}}}};
  return r;
}

EvalResult Checked(Verdict verdict, std::string reason) {
  EvalResult r;
  r.verdict = verdict;
  r.reason = std::move(reason);
  r.wall_s = 1.5;
  r.facts = {{"phases", {{"reference", 0.25}, {"reference.cuda", 0.2}, {"check", 0.5}}}};
  return r;
}

const SizeVariant kUneven{.name = "uneven", .sizes = {{"dim", 1001}}};

TEST(SizeChecksTest, OnlyACorrectFirstMeasurementAtTheTasksOwnSizesUnderStrictIsChecked) {
  const EvalProfile strict = StrictProfile();
  EXPECT_EQ(SizeChecksFor(strict, Correct(), 0).size(), 2u);  // Smaller and uneven dim.
  EXPECT_TRUE(SizeChecksFor(strict, Correct(), 1).empty());   // A confirmation: checked already.
  // A smoke test varies the sizes it ran at.
  EvalResult shrunk = Correct();
  shrunk.shrink = 8;
  shrunk.facts["task_sizes"] = {{"batch_size", 4096}, {"dim", 393216}};
  shrunk.facts["shrink"] = {{"factor", 8},
                            {"applies", true},
                            {"changed", {{"batch_size", {4096, 512}}, {"dim", {393216, 49152}}}}};
  const std::vector<SizeVariant> sets = SizeChecksFor(strict, shrunk, 0);
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[1].sizes, (std::map<std::string, int64_t>{{"batch_size", 513}, {"dim", 49153}}));
  EvalResult wrong = Correct();
  wrong.verdict = Verdict::kIncorrect;
  EXPECT_TRUE(SizeChecksFor(strict, wrong, 0).empty());
  EvalResult no_sizes = Correct();
  no_sizes.facts = nlohmann::json::object();  // A FlashInfer-Trace or TritonBench-G task.
  EXPECT_TRUE(SizeChecksFor(strict, no_sizes, 0).empty());
  for (const EvalProfile& harness : {PaperProfile(), ReferenceProfile(), KernelBenchProfile()}) {
    EXPECT_TRUE(SizeChecksFor(harness, Correct(), 0).empty()) << harness.name;
  }
}

TEST(SizeChecksTest, ACheckSetsTheSizesAndTimesNothing) {
  JobOptions options = StrictProfile().ToJobOptions(DeviceKind::kCuda);
  AsSizeCheck(kUneven, options);
  EXPECT_EQ(options.sizes, kUneven.sizes);
  EXPECT_EQ(options.trials, kSizeCheckTrials);
  EXPECT_FALSE(options.measure);
  EXPECT_FALSE(options.kernel_trace);
  EXPECT_FALSE(options.gpu_timeline);
  EXPECT_FALSE(options.null_selftest);
  EXPECT_FALSE(options.compile_baseline);
  EXPECT_FALSE(options.expert_baseline);
  EXPECT_FALSE(options.clean_reference_timing);
  EXPECT_TRUE(options.poison_memory);       // What finds unwritten elements.
  EXPECT_FALSE(options.determinism_check);  // The task's own sizes had it.
}

TEST(SizeChecksTest, EachVerdictAtAnotherSetIsAnOutcome) {
  EXPECT_EQ(ReadSizeCheck(kUneven, Checked(Verdict::kCorrect, ""), false).outcome,
            SizeOutcome::kPassed);
  for (Verdict v :
       {Verdict::kIncorrect, Verdict::kRuntimeError, Verdict::kCompileError, Verdict::kCrash}) {
    const SizeCheck check = ReadSizeCheck(kUneven, Checked(v, "why"), false);
    EXPECT_EQ(check.outcome, SizeOutcome::kWrong) << VerdictName(v);
    EXPECT_EQ(check.detail, std::string(VerdictName(v)) + ": why");
    EXPECT_EQ(check.wall_s, 1.5);
    EXPECT_EQ(check.busy_s, 0.75);  // Its phases, not their parts.
  }
  // Out of device memory beside other jobs says nothing about the kernel.
  EXPECT_EQ(ReadSizeCheck(kUneven, Checked(Verdict::kRuntimeError, "oom"), true).outcome,
            SizeOutcome::kNotRun);
  EXPECT_EQ(ReadSizeCheck(kUneven, Checked(Verdict::kTaskError, "assert"), false).outcome,
            SizeOutcome::kNotApplicable);
  for (Verdict v : {Verdict::kTimeout, Verdict::kError, Verdict::kRejected}) {
    EXPECT_EQ(ReadSizeCheck(kUneven, Checked(v, "x"), false).outcome, SizeOutcome::kNotRun)
        << VerdictName(v);
  }
}

TEST(SizeChecksTest, AKernelWrongAtAnotherSetKeepsItsSpeedupAndIsMarked) {
  EvalResult r = Correct();
  AddSizeChecks({{.set = "smaller", .sizes = {{"dim", 501}}, .outcome = SizeOutcome::kPassed},
                 {.set = "uneven",
                  .sizes = {{"batch_size", 17}, {"dim", 1001}},
                  .outcome = SizeOutcome::kWrong,
                  .detail = "incorrect: output 0 differs"}},
                r);
  EXPECT_TRUE(CorrectAtTaskSizesOnly(r));
  EXPECT_EQ(r.verdict, Verdict::kCorrect);
  EXPECT_EQ(r.speedup, 2.0);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0],
            "correct at the task's sizes only: wrong at batch_size=17, dim=1001 (uneven): "
            "incorrect: output 0 differs");
  // What the result's JSON keeps reads back the same.
  const EvalResult back = EvalResultFromJson(ToJson(r));
  ASSERT_EQ(back.size_checks.size(), 2u);
  EXPECT_EQ(back.size_checks[1].sizes, r.size_checks[1].sizes);
  EXPECT_EQ(back.size_checks[1].outcome, SizeOutcome::kWrong);
  EXPECT_TRUE(CorrectAtTaskSizesOnly(back));
}

TEST(SizeChecksTest, ATaskWhoseSizesCannotVarySaysSo) {
  EvalResult r = Correct();
  AddSizeChecks(
      {{.set = "smaller", .sizes = {{"dim", 501}}, .outcome = SizeOutcome::kNotApplicable},
       {.set = "uneven", .sizes = {{"dim", 1001}}, .outcome = SizeOutcome::kNotApplicable}},
      r);
  EXPECT_FALSE(CorrectAtTaskSizesOnly(r));
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0],
            "the task's sizes cannot vary (its reference fails at dim=501 (smaller)): checked at "
            "its own sizes only");
  EvalResult passed = Correct();
  AddSizeChecks({{.set = "uneven", .outcome = SizeOutcome::kPassed}}, passed);
  EXPECT_TRUE(passed.findings.empty());
  EXPECT_FALSE(CorrectAtTaskSizesOnly(passed));
}

}  // namespace
}  // namespace adaexplore
