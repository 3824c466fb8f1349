#include "eval/sanitizer.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

const std::vector<std::string> kBoth = {"memcheck", "racecheck"};

nlohmann::json ToolRun(std::string tool, std::string ended,
                       nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json run = {{"tool", tool},
                        {"ended", ended},
                        {"exit_code", 0},
                        {"signal", nullptr},
                        {"wall_s", 12.5},
                        {"errors", 0},
                        {"records", nlohmann::json::array()},
                        {"tail", ""}};
  run.update(extra);
  return run;
}

nlohmann::json Facts(nlohmann::json runs) {
  return {{"status", "ok"}, {"sanitizer", std::move(runs)}};
}

EvalResult Correct() {
  EvalResult r;
  r.verdict = Verdict::kCorrect;
  r.speedup = 2.0;
  return r;
}

TEST(SanitizerTest, TheToolsAreTheChoicesOwnInOrder) {
  EvalProfile profile = StrictProfile();
  EXPECT_EQ(SanitizerTools(profile), kBoth);
  profile.sanitizer_tools = "racecheck";
  EXPECT_EQ(SanitizerTools(profile), (std::vector<std::string>{"racecheck"}));
  profile.sanitizer_tools = "all";
  EXPECT_EQ(SanitizerTools(profile),
            (std::vector<std::string>{"memcheck", "racecheck", "synccheck", "initcheck"}));
  // Every choice names tools the worker knows.
  for (std::string_view choice : SanitizerToolChoices()) {
    profile.sanitizer_tools = std::string(choice);
    for (const std::string& tool : SanitizerTools(profile)) {
      EXPECT_TRUE(tool == "memcheck" || tool == "racecheck" || tool == "synccheck" ||
                  tool == "initcheck")
          << choice;
    }
  }
}

TEST(SanitizerTest, ASanitizerJobRunsTheToolsAndNothingElse) {
  EvalProfile profile = StrictProfile();
  profile.sanitizer_timeout_s = 100;
  JobOptions options = profile.ToJobOptions(DeviceKind::kCuda);
  AsSanitizerRun(profile, options);
  EXPECT_EQ(options.sanitize, kBoth);
  EXPECT_EQ(options.sanitize_timeout_s, 100);
  EXPECT_FALSE(options.measure);
  EXPECT_FALSE(options.kernel_trace);
  EXPECT_FALSE(options.expert_baseline);
  EXPECT_GT(SanitizerJobTimeout(profile), 200);  // Both tools' time and the job's start.
}

TEST(SanitizerTest, CleanRunsAddNoFindingAndTheKernelMayBeTheBest) {
  EvalResult r = Correct();
  AddSanitizerChecks(
      ReadSanitizerFacts(Facts({ToolRun("memcheck", "clean"), ToolRun("racecheck", "clean")}),
                         kBoth),
      r);
  ASSERT_EQ(r.sanitizer.size(), 2u);
  EXPECT_EQ(r.sanitizer[0].outcome, SanitizerOutcome::kClean);
  EXPECT_EQ(r.sanitizer[1].wall_s, 12.5);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_FALSE(UnsafeUnderSanitizer(r));
}

TEST(SanitizerTest, ErrorsTheToolFoundAreAFindingThatKeepsTheKernelFromBeingTheBest) {
  EvalResult r = Correct();
  const nlohmann::json facts =
      Facts({ToolRun("memcheck", "errors",
                     {{"exit_code", 86},
                      {"errors", 3},
                      {"records",
                       {"Invalid __global__ read of size 4 bytes at add_kernel+0x1d0",
                        "Invalid __global__ read of size 4 bytes at add_kernel+0x1d0"}}}),
             ToolRun("racecheck", "clean")});
  AddSanitizerChecks(ReadSanitizerFacts(facts, kBoth), r);
  EXPECT_EQ(r.sanitizer[0].outcome, SanitizerOutcome::kErrors);
  EXPECT_EQ(r.sanitizer[0].errors, 3);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].rfind("compute-sanitizer memcheck found 3 errors: Invalid __global__ "
                                "read of size 4 bytes at add_kernel+0x1d0; ",
                                0),
            0u)
      << r.findings[0];
  EXPECT_TRUE(UnsafeUnderSanitizer(r));
  EXPECT_EQ(SanitizerText(r), r.findings[0]);
  // The verdict and speedup stand.
  EXPECT_EQ(r.verdict, Verdict::kCorrect);
  EXPECT_EQ(r.speedup, 2.0);
  // And it survives the round trip through the stored result.
  const EvalResult back = EvalResultFromJson(ToJson(r));
  ASSERT_EQ(back.sanitizer.size(), 2u);
  EXPECT_EQ(back.sanitizer[0].errors, 3);
  EXPECT_TRUE(UnsafeUnderSanitizer(back));
}

TEST(SanitizerTest, ACallThatDoesNotFinishUnderTheToolIsNotVouchedFor) {
  for (const auto& [ended, said] : std::vector<std::pair<std::string, std::string>>{
           {"target_failed", "the kernel's call raised under it"},
           {"timed_out", "did not finish in its time"},
           {"signal", "killed (signal 9)"},
           {"tool_failed", "exited with status 1"}}) {
    EvalResult r = Correct();
    AddSanitizerChecks(
        ReadSanitizerFacts(
            Facts({ToolRun("memcheck", ended,
                           {{"exit_code", 1}, {"signal", 9}, {"tail", "RuntimeError: boom\n"}})}),
            {"memcheck"}),
        r);
    EXPECT_EQ(r.sanitizer[0].outcome, SanitizerOutcome::kFailed) << ended;
    ASSERT_EQ(r.findings.size(), 1u) << ended;
    EXPECT_NE(r.findings[0].find(said), std::string::npos) << r.findings[0];
    EXPECT_NE(r.findings[0].find("RuntimeError: boom"), std::string::npos) << r.findings[0];
    EXPECT_TRUE(UnsafeUnderSanitizer(r)) << ended;
  }
}

TEST(SanitizerTest, ErrorsComeBeforeAFailureInTheFinding) {
  EvalResult r = Correct();
  AddSanitizerChecks(
      ReadSanitizerFacts(
          Facts({ToolRun("memcheck", "timed_out"),
                 ToolRun("racecheck", "errors", {{"errors", 1}, {"records", {"Race reported"}}})}),
          kBoth),
      r);
  EXPECT_EQ(SanitizerText(r), "compute-sanitizer racecheck found 1 error: Race reported");
}

TEST(SanitizerTest, NoToolOrAHarnessFailureIsNotRunAndBarsNothing) {
  EvalResult r = Correct();
  AddSanitizerChecks(
      ReadSanitizerFacts(
          Facts({ToolRun("memcheck", "missing", {{"tail", "no executable compute-sanitizer"}}),
                 ToolRun("racecheck", "missing")}),
          kBoth),
      r);
  EXPECT_EQ(r.sanitizer[0].outcome, SanitizerOutcome::kNotRun);
  EXPECT_EQ(r.sanitizer[0].detail, "no executable compute-sanitizer");
  EXPECT_TRUE(r.findings.empty());
  EXPECT_FALSE(UnsafeUnderSanitizer(r));

  const nlohmann::json harness = {{"status", "harness_error"},
                                  {"error", {{"message", "the sandbox lacks seccomp"}}}};
  const std::vector<SanitizerCheck> checks = ReadSanitizerFacts(harness, kBoth);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[1].outcome, SanitizerOutcome::kNotRun);
  EXPECT_NE(checks[1].detail.find("the sandbox lacks seccomp"), std::string::npos);

  const std::vector<SanitizerCheck> none = SanitizerNotRun(kBoth, "no tool");
  EXPECT_EQ(none.size(), 2u);
  EXPECT_EQ(none[1].outcome, SanitizerOutcome::kNotRun);
}

TEST(SanitizerTest, AToolThatCannotRunTheHarnesssOwnTargetIsNotRunAndBarsNothing) {
  EvalResult r = Correct();
  AddSanitizerChecks(
      ReadSanitizerFacts(
          Facts({ToolRun("memcheck", "unusable",
                         {{"exit_code", 255}, {"tail", "Error 304: OS call failed\n"}}),
                 ToolRun("racecheck", "unusable", {{"exit_code", 255}})}),
          kBoth),
      r);
  ASSERT_EQ(r.sanitizer.size(), 2u);
  EXPECT_EQ(r.sanitizer[0].outcome, SanitizerOutcome::kNotRun);
  EXPECT_NE(r.sanitizer[0].detail.find("cannot run CUDA in the candidate's sandbox"),
            std::string::npos);
  EXPECT_NE(r.sanitizer[0].detail.find("Error 304"), std::string::npos);
  EXPECT_FALSE(UnsafeUnderSanitizer(r));
  EXPECT_TRUE(r.findings.empty());
}

TEST(SanitizerTest, AJobKilledBeforeAToolRanIsNotVouchedFor) {
  // The candidate's process may have killed its evaluation or outrun it: the kernel's doing.
  for (const char* status : {"timeout", "crash", "memory_limit"}) {
    const std::vector<SanitizerCheck> checks = ReadSanitizerFacts(
        {{"status", status}, {"sanitizer", {ToolRun("memcheck", "clean")}}}, kBoth);
    EXPECT_EQ(checks[0].outcome, SanitizerOutcome::kClean) << status;
    EXPECT_EQ(checks[1].outcome, SanitizerOutcome::kFailed) << status;
  }
}

TEST(SanitizerTest, AJobEndedBeforeTheCandidatesPhaseBarsNothing) {
  // A limit or a crash while the tool ran the harness's own target (or in the task's phases):
  // no candidate code had run, so nothing of it is the kernel's.
  for (const char* phase : {"sanitize_probe", "load_task", "reference"}) {
    for (const char* status : {"timeout", "crash", "memory_limit"}) {
      const std::vector<SanitizerCheck> checks =
          ReadSanitizerFacts({{"status", status}, {"phase", phase}}, kBoth);
      EXPECT_EQ(checks[0].outcome, SanitizerOutcome::kNotRun) << phase << " " << status;
      EXPECT_EQ(checks[1].outcome, SanitizerOutcome::kNotRun) << phase << " " << status;
    }
  }
  // Ended in the candidate's phase, or where the facts do not say: not vouched for.
  EXPECT_EQ(ReadSanitizerFacts({{"status", "timeout"}, {"phase", "sanitize"}}, kBoth)[0].outcome,
            SanitizerOutcome::kFailed);
  EXPECT_EQ(ReadSanitizerFacts({{"status", "timeout"}}, kBoth)[0].outcome,
            SanitizerOutcome::kFailed);
}

TEST(SanitizerTest, OnceTheToolsStartedAnyEndWithoutTheirRunsIsNotVouchedFor) {
  // The candidate's code ran in the sanitize phase: a harness error there, or facts it made
  // unreadable, may be its doing.
  const nlohmann::json harness = {{"status", "harness_error"},
                                  {"phases", {{"load_task", 0.1}, {"sanitize", 3.0}}},
                                  {"error", {{"message", "ValueError"}}}};
  EXPECT_EQ(ReadSanitizerFacts(harness, kBoth)[0].outcome, SanitizerOutcome::kFailed);
  const nlohmann::json unreadable = {
      {"status", "ok"},
      {"phases", {{"sanitize", 3.0}}},
      {"sanitizer", {ToolRun("memcheck", "errors", {{"errors", "a lot"}})}}};
  EXPECT_EQ(ReadSanitizerFacts(unreadable, kBoth)[0].outcome, SanitizerOutcome::kFailed);
  // An end the protocol does not name is no clean run.
  const nlohmann::json unnamed = {{"status", "ok"},
                                  {"phases", {{"sanitize", 3.0}}},
                                  {"sanitizer", {ToolRun("memcheck", "fine")}}};
  EXPECT_EQ(ReadSanitizerFacts(unnamed, kBoth)[0].outcome, SanitizerOutcome::kFailed);
  const nlohmann::json killed = {{"status", "protocol_violation"}, {"phase", "sanitize"}};
  EXPECT_EQ(ReadSanitizerFacts(killed, kBoth)[1].outcome, SanitizerOutcome::kFailed);
}

TEST(SanitizerTest, AnIncorrectKernelIsNeverCalledUnsafe) {
  EvalResult r = Correct();
  r.verdict = Verdict::kIncorrect;
  AddSanitizerChecks(ReadSanitizerFacts(Facts({ToolRun("memcheck", "errors")}), {"memcheck"}), r);
  EXPECT_FALSE(UnsafeUnderSanitizer(r));
}

}  // namespace
}  // namespace adaexplore
