#include <gtest/gtest.h>

#include "cli/adapt_command.h"
#include "cli/bench_command.h"
#include "cli/eval_command.h"
#include "cli/run_command.h"
#include "config/config.h"

namespace adaexplore {
namespace {

Config FromFile(const char* text) {
  Config config;
  EXPECT_TRUE(ApplyConfigText(text, "adaexplore.toml", config).ok());
  return config;
}

// Flags as a parse leaves them: the evaluation settings' flags given, by setting name.
JudgingFlags Flags(std::map<std::string, std::string> given, std::string profile = "") {
  JudgingFlags flags;
  flags.profile = std::move(profile);
  flags.settings.given = std::move(given);
  return flags;
}

// Another valid value of `s`, as a flag's text.
std::string AnotherText(const Setting<EvalProfile>& s) {
  switch (s.kind) {
    case SettingKind::kBoolean:
      return "true";
    case SettingKind::kInteger:
      return "7";
    case SettingKind::kNumber:
      return "0.125";
    case SettingKind::kChoice:
      return std::string(s.choices.back());
    case SettingKind::kText:
      return "some text";
    case SettingKind::kIntegerList:
      return "1,2";
  }
  return "";
}

// Every command that evaluates takes every evaluation setting's flag, and the value reaches the
// profile: a setting added to the table is on every command at once.
TEST(EvalFlagsTest, EveryEvaluationSettingHasItsFlagOnEveryCommand) {
  for (const Setting<EvalProfile>& s : EvalSettingTable()) {
    const std::string text = AnotherText(s);
    std::vector<std::string> args = {std::string(s.flag)};
    if (s.kind != SettingKind::kBoolean) {
      args.push_back(text);
    }
    for (const char* command : {"eval", "run", "bench", "adapt"}) {
      CLI::App app;
      EvalFlags eval;
      RunFlags run;
      BenchFlags bench;
      AdaptFlags adapt;
      AddEvalCommand(app, eval);
      AddRunCommand(app, run);
      AddBenchCommand(app, bench);
      AddAdaptCommand(app, adapt);
      std::vector<std::string> argv = {"adaexplore", command};
      if (std::string(command) == "bench") {
        argv.insert(argv.end(), {"--suite", "tasks"});
      } else if (std::string(command) == "adapt") {
        argv.insert(argv.end(), {"--memory", "memory.sqlite"});
      }
      argv.insert(argv.end(), args.begin(), args.end());
      std::vector<const char*> c_argv;
      for (const std::string& a : argv) {
        c_argv.push_back(a.c_str());
      }
      ASSERT_NO_THROW(app.parse(static_cast<int>(c_argv.size()), c_argv.data()))
          << command << " " << s.flag;
      const std::string name = std::string(command);
      const JudgingFlags given = name == "eval"    ? eval.judging
                                 : name == "run"   ? run.judging
                                 : name == "bench" ? bench.search.judging
                                                   : adapt.search.judging;
      Config config;
      ASSERT_TRUE(ApplyJudgingFlags(given, config).ok()) << command << " " << s.flag;
      EXPECT_EQ(s.get(config.profile), *SettingValueFromText(s, text)) << command << " " << s.flag;
    }
  }
}

// A boolean setting's --no- form turns it off, whatever its default (expert_baseline is on).
TEST(EvalFlagsTest, EveryBooleanSettingHasANoForm) {
  for (const Setting<EvalProfile>& s : EvalSettingTable()) {
    if (s.kind != SettingKind::kBoolean) {
      continue;
    }
    CLI::App app;
    EvalFlags eval;
    AddEvalCommand(app, eval);
    const std::string flag = "--no-" + std::string(s.flag).substr(2);
    std::vector<const char*> argv = {"adaexplore", "eval", flag.c_str()};
    ASSERT_NO_THROW(app.parse(static_cast<int>(argv.size()), argv.data())) << flag;
    Config config;
    ASSERT_TRUE(s.set(config.profile, nlohmann::json(true)).ok());
    ASSERT_TRUE(ApplyJudgingFlags(eval.judging, config).ok()) << flag;
    EXPECT_EQ(s.get(config.profile), nlohmann::json(false)) << flag;
  }
}

// --help names what each flag takes: INT, NUMBER or the choices, not TEXT.
TEST(EvalFlagsTest, HelpNamesTheValueEachFlagTakes) {
  CLI::App app;
  EvalFlags eval;
  AddEvalCommand(app, eval);
  const std::string help = app.get_subcommand("eval")->help();
  EXPECT_NE(help.find("--trials INT "), std::string::npos) << help;
  EXPECT_NE(help.find("--timeout NUMBER "), std::string::npos) << help;
  EXPECT_NE(help.find("--precision fp32|bf16|fp16 "), std::string::npos) << help;
}

TEST(EvalFlagsTest, AFlagOutOfRangeIsAnErrorNamingIt) {
  for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"trials", "0"}, {"timeout_s", "-5"}, {"precision", "fp8"}, {"warmup_runs", "x"}}) {
    Config config;
    Status s = ApplyJudgingFlags(Flags({{name, text}}), config);
    EXPECT_FALSE(s.ok()) << name;
    EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
  }
}

TEST(EvalFlagsTest, ProfileFlagKeepsTheFilesSettings) {
  // Defaults, then the file, then flags: picking a profile on the command line must not drop
  // what the file set.
  Config config = FromFile(
      "[eval]\ntrials = 3\ntimeout_s = 600\npytorch_compute = \"forbidden\"\n"
      "memory_limit_mb = 8000\n");
  ASSERT_TRUE(ApplyJudgingFlags({.profile = "paper"}, config).ok());
  EXPECT_EQ(config.profile.name, "paper");
  EXPECT_EQ(config.profile.job.criterion, Criterion::kAllclose);
  EXPECT_EQ(config.profile.job.trials, 3);
  EXPECT_DOUBLE_EQ(config.profile.timeout_s, 600);
  EXPECT_EQ(config.profile.pytorch_compute, PytorchCompute::kForbidden);
  EXPECT_DOUBLE_EQ(config.profile.memory_limit_mb, 8000);
  // The same profile named again changes nothing.
  Config same = FromFile("[eval]\ntrials = 3\n");
  ASSERT_TRUE(ApplyJudgingFlags({.profile = "strict"}, same).ok());
  EXPECT_EQ(same.profile.job.trials, 3);
}

TEST(EvalFlagsTest, PrecisionFlagKeepsAToleranceTheFileSet) {
  Config config = FromFile("[eval]\natol = 1e-3\ntrials = 4\n");
  ASSERT_TRUE(ApplyJudgingFlags(Flags({{"precision", "bf16"}}), config).ok());
  EXPECT_EQ(config.profile.job.precision, Precision::kBf16);
  EXPECT_DOUBLE_EQ(config.profile.job.atol, 1e-3);  // The file's.
  EXPECT_DOUBLE_EQ(config.profile.job.rtol, 1e-2);  // bf16's, as the file set none.
  EXPECT_EQ(config.profile.job.trials, 4);
  // Flags outrank the file.
  Config flagged = FromFile("[eval]\ntrials = 4\n");
  ASSERT_TRUE(ApplyJudgingFlags(Flags({{"trials", "9"}}, "paper"), flagged).ok());
  EXPECT_EQ(flagged.profile.job.trials, 9);
}

TEST(EvalFlagsTest, UnknownProfileOrPrecisionIsAnError) {
  Config config;
  EXPECT_FALSE(ApplyJudgingFlags({.profile = "lenient"}, config).ok());
  EXPECT_FALSE(ApplyJudgingFlags(Flags({{"precision", "fp8"}}), config).ok());
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
  ASSERT_TRUE(RestoreRunProfile(run, {.judging = {.profile = "paper"}}, today).ok());
  EXPECT_EQ(today.profile.name, "strict");
  EXPECT_EQ(today.profile.job.trials, 3);
  EXPECT_EQ(today.profile.pytorch_compute, PytorchCompute::kForbidden);
  // Flags other than the profile and precision still apply (a longer timeout, say).
  ASSERT_TRUE(
      RestoreRunProfile(run, {.judging = {.settings = {{{"timeout_s", "900"}}}}}, today).ok());
  EXPECT_DOUBLE_EQ(today.profile.timeout_s, 900);
  EXPECT_EQ(today.profile.job.trials, 3);
  // A run from before the settings were stored keeps its profile and precision.
  RunInfo old{.id = 2, .options = {{"profile", "strict"}, {"precision", "bf16"}}};
  ASSERT_TRUE(RestoreRunProfile(old, {}, today).ok());
  EXPECT_EQ(today.profile.job.precision, Precision::kBf16);
  EXPECT_DOUBLE_EQ(today.profile.job.atol, 1e-2);
  // A run stored while the worker-process settings were evaluation settings resumes.
  RunInfo before_move{
      .id = 3,
      .options = {{"profile", "strict"},
                  {"eval", {{"trials", 4}, {"judge_threads", 4}, {"prepare_ahead", 2}}}}};
  ASSERT_TRUE(RestoreRunProfile(before_move, {}, today).ok());
  EXPECT_EQ(today.profile.job.trials, 4);
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

// Flags left out are unset, not a sentinel value; a value out of range is refused by the parser.
TEST(RunFlagsTest, UnsetFlagsAreUnsetAndBadOnesRefused) {
  auto parse = [](std::vector<std::string> args, RunFlags& run) {
    CLI::App app;
    AddRunCommand(app, run);
    args.insert(args.begin(), {"adaexplore", "run"});
    std::vector<const char*> argv;
    for (const std::string& a : args) {
      argv.push_back(a.c_str());
    }
    app.parse(static_cast<int>(argv.size()), argv.data());
  };
  RunFlags plain;
  ASSERT_NO_THROW(parse({"--task", "t.py"}, plain));
  EXPECT_FALSE(plain.run_id.has_value());
  EXPECT_FALSE(plain.expand_ratio.has_value());
  EXPECT_DOUBLE_EQ(EffectiveSearch(plain, Config{}).explore.expand_ratio, 1.0);
  RunFlags given;
  ASSERT_NO_THROW(parse({"--resume", "--run", "4", "--expand-ratio", "0.5"}, given));
  EXPECT_EQ(given.run_id, 4);
  EXPECT_DOUBLE_EQ(EffectiveSearch(given, Config{}).explore.expand_ratio, 0.5);
  for (std::vector<std::string> bad : {std::vector<std::string>{"--expand-ratio", "-1"},
                                       {"--expand-ratio", "0"},
                                       {"--run", "0"}}) {
    RunFlags refused;
    EXPECT_THROW(parse(bad, refused), CLI::ValidationError) << bad[0] << " " << bad[1];
  }
}

// A new run's settings: the command's defaults, then the config file's [run], then the flags; the
// same flags on run, bench and adapt, since all three are made from the one table.
TEST(RunFlagsTest, RunSettingsComeFromDefaultsThenConfigThenFlags) {
  auto parse = [](const char* command, std::vector<std::string> args, RunFlags& run) {
    CLI::App app;
    RunFlags run_flags;
    BenchFlags bench;
    AdaptFlags adapt;
    AddRunCommand(app, run_flags);
    AddBenchCommand(app, bench);
    AddAdaptCommand(app, adapt);
    args.insert(args.begin(), {"adaexplore", command});
    std::vector<const char*> argv;
    for (const std::string& a : args) {
      argv.push_back(a.c_str());
    }
    app.parse(static_cast<int>(argv.size()), argv.data());
    run = std::string(command) == "run"     ? run_flags
          : std::string(command) == "bench" ? bench.search
                                            : adapt.search;
  };
  Config config;
  ASSERT_TRUE(ApplyConfigText("[llm]\nmodel = \"openai:m\"\n[run]\nseed = 7\nconfirm_best = true\n"
                              "steps = 9\n",
                              "t.toml", config)
                  .ok());
  for (const char* command : {"run", "bench", "adapt"}) {
    RunFlags flags;
    std::vector<std::string> args = {"--steps",
                                     "4",
                                     "--no-confirm-best",
                                     "--language",
                                     "cuda",
                                     "--reasoning-effort",
                                     "low",
                                     "--max-output-tokens",
                                     "100"};
    if (std::string(command) == "adapt") {
      args.insert(args.end(), {"--memory", "m.sqlite"});
    }
    ASSERT_NO_THROW(parse(command, args, flags)) << command;
    Result<RunSpec> spec = RunSpecFromFlags(flags, config);
    ASSERT_TRUE(spec.ok()) << command << ": " << spec.status().ToString();
    EXPECT_EQ(spec->model, "openai:m");
    EXPECT_EQ(spec->seed, 7u) << command;         // The config's.
    EXPECT_EQ(spec->steps, 4) << command;         // The flag over the config's 9.
    EXPECT_FALSE(spec->confirm_best) << command;  // --no-confirm-best over the config's.
    EXPECT_EQ(spec->language, KernelLanguage::kCuda);
    EXPECT_EQ(spec->reasoning_effort, "low");
    EXPECT_EQ(spec->max_output_tokens, 100);
    EXPECT_EQ(spec->reviser, std::string(command) != "adapt") << command;  // adapt's default.
  }
  // The objective lives in the search's settings: the config's [run] and the flag both reach
  // the spec (the search's settings were once set after them, and the objective lost).
  Config sol;
  ASSERT_TRUE(
      ApplyConfigText("[llm]\nmodel = \"openai:m\"\n[run]\nobjective = \"sol\"\n", "t.toml", sol)
          .ok());
  RunFlags plain;
  ASSERT_NO_THROW(parse("run", {}, plain));
  Result<RunSpec> from_config = RunSpecFromFlags(plain, sol);
  ASSERT_TRUE(from_config.ok()) << from_config.status().ToString();
  EXPECT_EQ(from_config->search.rewards.objective, Objective::kSol);
  RunFlags flagged;
  ASSERT_NO_THROW(parse("run", {"--objective", "sol", "--expand-ratio", "0.5"}, flagged));
  Result<RunSpec> from_flag = RunSpecFromFlags(flagged, config);
  ASSERT_TRUE(from_flag.ok()) << from_flag.status().ToString();
  EXPECT_EQ(from_flag->search.rewards.objective, Objective::kSol);
  EXPECT_DOUBLE_EQ(from_flag->search.explore.expand_ratio, 0.5);

  RunFlags bad;
  ASSERT_NO_THROW(parse("run", {"--steps", "0"}, bad));
  Result<RunSpec> refused = RunSpecFromFlags(bad, config);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("--steps 0"), std::string::npos)
      << refused.status().message();
}

}  // namespace
}  // namespace adaexplore
