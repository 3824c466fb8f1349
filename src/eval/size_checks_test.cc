#include "eval/size_checks.h"

#include <gtest/gtest.h>

#include "eval_facts.h"

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

namespace adaexplore {
namespace {

// A correct job's facts that carried `sets` as its size_sets option, its size_sets phase 0.5 s.
nlohmann::json WithSets(nlohmann::json sets) {
  nlohmann::json facts = test_facts::CorrectFacts();
  facts["size_sets"] = std::move(sets);
  facts["phases"] = {{"check", 1.0}, {"size_sets", 0.5}, {"size_sets.record", 0.1}};
  return facts;
}

nlohmann::json FailingTrial(int index) {
  nlohmann::json trial = test_facts::PassingTrial(index);
  trial["passed"] = false;
  trial["outputs"][0]["values"] = {
      {"passed", false}, {"max_abs_err", 3.0}, {"max_rel_err", 1.5}, {"ref_max_abs", 2.0}};
  return trial;
}

const SizeVariant kSmaller{.name = "smaller", .sizes = {{"dim", 501}}};

TEST(SizeSetsInJobTest, EachSetOfTheCandidatesOwnJobIsReadAsItsOwnCheckWouldBe) {
  const EvalProfile strict = StrictProfile();
  const std::vector<SizeSet> sent = AsSizeSets({kSmaller, kUneven}, 5);
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[1], (SizeSet{.name = "uneven", .sizes = {{"dim", 1001}}, .trials = 2}));
  EXPECT_EQ(AsSizeSets({kSmaller}, 1)[0].trials, 1);  // Never more than the candidate's own.

  const nlohmann::json facts =
      WithSets({{{"name", "smaller"},
                 {"ran", true},
                 {"trials", {test_facts::PassingTrial(2), test_facts::PassingTrial(3)}}},
                {{"name", "uneven"},
                 {"ran", true},
                 {"trials", {test_facts::PassingTrial(4), FailingTrial(5)}}}});
  const std::vector<SizeCheck> checks = ReadSizeSets({kSmaller, kUneven}, facts, strict, nullptr);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].outcome, SizeOutcome::kPassed) << checks[0].detail;
  EXPECT_EQ(checks[0].sizes, kSmaller.sizes);
  EXPECT_TRUE(checks[0].in_job);
  EXPECT_DOUBLE_EQ(checks[0].busy_s, 0.25);  // Its share of the size_sets phase.
  EXPECT_DOUBLE_EQ(checks[0].wall_s, 0);
  EXPECT_EQ(checks[1].outcome, SizeOutcome::kWrong);
  EXPECT_TRUE(checks[1].detail.starts_with("incorrect: ")) << checks[1].detail;

  EvalResult r = Checked(Verdict::kCorrect, "");
  AddSizeChecks(checks, r);
  EXPECT_TRUE(CorrectAtTaskSizesOnly(r));
  EXPECT_EQ(SizeCheckFromJson(ToJson(r.size_checks[1])).in_job, true);
}

TEST(SizeSetsInJobTest, ARefusedReferenceARaisingCallAndForgedSetsAreTheirOwnOutcomes) {
  const EvalProfile strict = StrictProfile();
  const SizeVariant larger{.name = "larger", .sizes = {{"dim", 2000}}};
  const SizeVariant missing{.name = "missing", .sizes = {{"dim", 7}}};
  const SizeVariant memory{.name = "memory", .sizes = {{"dim", 9}}};
  const SizeVariant short_of{.name = "short", .sizes = {{"dim", 11}}};
  const nlohmann::json facts =
      WithSets({{{"name", "smaller"}, {"reference_error", "AssertionError: dim must be 1000"}},
                {{"name", "uneven"},
                 {"ran", true},
                 {"trials", nlohmann::json::array()},
                 {"error", {{"type", "IndexError"}, {"message", "index 1000 is out of bounds"}}}},
                {{"name", "larger"}, {"ran", false}},
                {{"name", "memory"},
                 {"ran", true},
                 {"error",
                  {{"type", "OutOfMemoryError"},
                   {"message", "CUDA out of memory"},
                   {"out_of_memory", true}}}},
                {{"name", "short"}, {"ran", true}, {"trials", {test_facts::PassingTrial(2)}}}});
  const std::vector<SizeCheck> checks =
      ReadSizeSets({kSmaller, kUneven, larger, missing, memory, short_of}, facts, strict, nullptr);
  ASSERT_EQ(checks.size(), 6u);
  EXPECT_EQ(checks[0].outcome, SizeOutcome::kNotApplicable);
  EXPECT_NE(checks[0].detail.find("dim must be 1000"), std::string::npos) << checks[0].detail;
  EXPECT_EQ(checks[1].outcome, SizeOutcome::kWrong);
  EXPECT_EQ(checks[1].detail, "runtime_error: raised IndexError: index 1000 is out of bounds");
  EXPECT_EQ(checks[4].outcome, SizeOutcome::kNotRun);  // Memory beside others: the machine's.
  // The candidate ran in the process that wrote these facts after it wrote them. A correct job
  // runs every set whose reference was made, all its trials, and reports every set it was sent.
  for (size_t i : {2, 3, 5}) {
    EXPECT_EQ(checks[i].outcome, SizeOutcome::kWrong) << checks[i].set;
    EXPECT_TRUE(checks[i].detail.starts_with("forged_result: ")) << checks[i].detail;
  }
  EXPECT_EQ(checks[2].busy_s, 0);
  // A reference the task's own check jobs made at those sizes does run there.
  const std::vector<SizeCheck> made = ReadSizeSets({kSmaller}, facts, strict, nullptr, {"smaller"});
  EXPECT_EQ(made[0].outcome, SizeOutcome::kWrong);
  EXPECT_TRUE(made[0].detail.starts_with("forged_result: ")) << made[0].detail;
  // Facts that do not read are no set's verdict.
  nlohmann::json broken = facts;
  broken["size_sets"][1]["ran"] = "yes";
  for (const SizeCheck& check : ReadSizeSets({kSmaller, kUneven}, broken, strict, nullptr)) {
    EXPECT_EQ(check.outcome, SizeOutcome::kNotRun);
  }
}

TEST(SizeSetsInJobTest, ASetsOutputsAreTheJudgesAndATrialItNeverSawPassesNothing) {
  const EvalProfile strict = StrictProfile();
  nlohmann::json facts =
      WithSets({{{"name", "smaller"},
                 {"ran", true},
                 {"trials", {test_facts::PassingTrial(2), test_facts::PassingTrial(3)}}},
                {{"name", "uneven"},
                 {"ran", true},
                 {"trials", {test_facts::PassingTrial(4), test_facts::PassingTrial(5)}}}});
  // The evaluation process said all passed; the judge compared the outputs itself, and never
  // saw trial 5.
  nlohmann::json judged = nlohmann::json::array();
  for (int index : {0, 1, 2, 3, 4}) {
    nlohmann::json values = test_facts::PassingTrial(index)["outputs"][0]["values"];
    if (index == 2) {
      values = {
          {"passed", false}, {"max_abs_err", 4.0}, {"max_rel_err", 2.0}, {"ref_max_abs", 2.0}};
    }
    judged.push_back({{"index", index},
                      {"passed", index != 2},
                      {"outputs", {values}},
                      {"problems", nlohmann::json::array()}});
  }
  facts["judge"] = {{"references", "sealed"}, {"trials", judged}};
  const std::vector<SizeCheck> checks = ReadSizeSets({kSmaller, kUneven}, facts, strict, nullptr);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].outcome, SizeOutcome::kWrong) << checks[0].detail;
  EXPECT_EQ(checks[1].outcome, SizeOutcome::kWrong) << checks[1].detail;
  EXPECT_TRUE(checks[1].detail.starts_with("rejected: ")) << checks[1].detail;  // forged_result
}

TEST(SizeSetsInJobTest, OnlyAJobThatEndedWhileItCheckedTheSetsEndedAtThem) {
  EXPECT_TRUE(EndedAtSizeSets({{"status", "crash"}, {"signal", 11}, {"phase", "size_sets"}}));
  EXPECT_TRUE(EndedAtSizeSets({{"status", "timeout"}, {"phase", "size_sets"}}));
  EXPECT_FALSE(EndedAtSizeSets({{"status", "crash"}, {"phase", "check"}}));
  EXPECT_FALSE(EndedAtSizeSets({{"status", "ok"}, {"phase", "size_sets"}}));
  EXPECT_FALSE(EndedAtSizeSets({{"status", "crash"}, {"phase", 3}}));
}

}  // namespace
}  // namespace adaexplore
