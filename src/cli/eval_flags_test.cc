#include <gtest/gtest.h>

#include "cli/bench_command.h"
#include "cli/eval_command.h"
#include "cli/run_command.h"

namespace adaexplore {
namespace {

Config FromFile(const char* text) {
  Config config;
  EXPECT_TRUE(ApplyConfigText(text, "adaexplore.toml", config).ok());
  return config;
}

TEST(EvalFlagsTest, ProfileFlagKeepsTheFilesSettings) {
  // Defaults, then the file, then flags: picking a profile on the command line must not drop
  // what the file set.
  Config config = FromFile(
      "[eval]\ntrials = 3\ntimeout_s = 600\npytorch_compute = \"forbidden\"\n"
      "memory_limit_mb = 8000\n");
  ASSERT_TRUE(ApplyEvalFlags({.profile = "paper"}, config).ok());
  EXPECT_EQ(config.profile.name, "paper");
  EXPECT_EQ(config.profile.criterion, "allclose");
  EXPECT_EQ(config.profile.trials, 3);
  EXPECT_DOUBLE_EQ(config.profile.timeout_s, 600);
  EXPECT_EQ(config.profile.pytorch_compute, "forbidden");
  EXPECT_DOUBLE_EQ(config.profile.memory_limit_mb, 8000);
  // The same profile named again changes nothing.
  Config same = FromFile("[eval]\ntrials = 3\n");
  ASSERT_TRUE(ApplyEvalFlags({.profile = "strict"}, same).ok());
  EXPECT_EQ(same.profile.trials, 3);
}

TEST(EvalFlagsTest, PrecisionFlagKeepsAToleranceTheFileSet) {
  Config config = FromFile("[eval]\natol = 1e-3\ntrials = 4\n");
  ASSERT_TRUE(ApplyEvalFlags({.precision = "bf16"}, config).ok());
  EXPECT_EQ(config.profile.precision, "bf16");
  EXPECT_DOUBLE_EQ(config.profile.atol, 1e-3);  // The file's.
  EXPECT_DOUBLE_EQ(config.profile.rtol, 1e-2);  // bf16's, as the file set none.
  EXPECT_EQ(config.profile.trials, 4);
  // Flags outrank the file.
  Config flagged = FromFile("[eval]\ntrials = 4\n");
  ASSERT_TRUE(ApplyEvalFlags({.profile = "paper", .trials = 9}, flagged).ok());
  EXPECT_EQ(flagged.profile.trials, 9);
}

TEST(EvalFlagsTest, UnknownProfileOrPrecisionIsAnError) {
  Config config;
  EXPECT_FALSE(ApplyEvalFlags({.profile = "lenient"}, config).ok());
  EXPECT_FALSE(ApplyEvalFlags({.precision = "fp8"}, config).ok());
  EXPECT_EQ(config.profile.name, "strict");
}

TEST(EvalFlagsTest, ResumedRunJudgesWithItsOwnSettings) {
  // The run was made with trials 3 and PyTorch compute forbidden; today's config file says
  // otherwise, and the resuming command names another profile.
  Config made = FromFile("[eval]\ntrials = 3\npytorch_compute = \"forbidden\"\n");
  RunInfo run{
      .id = 4,
      .options = {
          {"profile", "strict"}, {"precision", "fp32"}, {"eval", EvalSettings(made.profile)}}};
  Config today = FromFile("[eval]\ntrials = 8\n");
  ASSERT_TRUE(RestoreRunProfile(run, {.profile = "paper"}, today).ok());
  EXPECT_EQ(today.profile.name, "strict");
  EXPECT_EQ(today.profile.trials, 3);
  EXPECT_EQ(today.profile.pytorch_compute, "forbidden");
  // Flags other than the profile and precision still apply (a longer timeout, say).
  ASSERT_TRUE(RestoreRunProfile(run, {.timeout_s = 900}, today).ok());
  EXPECT_DOUBLE_EQ(today.profile.timeout_s, 900);
  EXPECT_EQ(today.profile.trials, 3);
  // A run from before the settings were stored keeps its profile and precision.
  RunInfo old{.id = 2, .options = {{"profile", "strict"}, {"precision", "bf16"}}};
  ASSERT_TRUE(RestoreRunProfile(old, {}, today).ok());
  EXPECT_EQ(today.profile.precision, "bf16");
  EXPECT_DOUBLE_EQ(today.profile.atol, 1e-2);
  // Damaged stored settings are an error naming the run.
  RunInfo broken{.id = 9, .options = {{"profile", "strict"}, {"eval", {{"trials", "many"}}}}};
  Status s = RestoreRunProfile(broken, {}, today);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("run 9"), std::string::npos) << s.message();
}

TEST(BenchFlagsTest, LevelThreeExploresLessUnlessTold) {
  EXPECT_DOUBLE_EQ(BenchExpandRatio({.suite = "kernelbench:level3"}), 0.5);
  EXPECT_DOUBLE_EQ(BenchExpandRatio({.suite = "kernelbench:level2"}), 1.0);
  EXPECT_DOUBLE_EQ(BenchExpandRatio({.suite = "my-suite"}), 1.0);
  EXPECT_DOUBLE_EQ(BenchExpandRatio({.suite = "kernelbench:level3", .expand_ratio = 0.8}), 0.8);
}

}  // namespace
}  // namespace adaexplore
