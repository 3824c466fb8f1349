#include "config/config.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

namespace adaexplore {
namespace {

TEST(ConfigTest, AppliesSectionsOverDefaults) {
  Config config;
  ASSERT_TRUE(ApplyConfigText(R"(
[eval]
profile = "paper"
trials = 3
timeout_s = 60.5
[workers]
device = "cpu"
gpus = [0, 2]
slots = 3
[cache]
enabled = false
[log]
level = "debug"
[search]
prompts_dir = "/srv/my-prompts"
)",
                              "test.toml", config)
                  .ok());
  EXPECT_EQ(config.profile.name, "paper");
  EXPECT_EQ(config.profile.job.criterion, Criterion::kAllclose);
  EXPECT_EQ(config.profile.job.trials, 3);
  EXPECT_DOUBLE_EQ(config.profile.timeout_s, 60.5);
  EXPECT_EQ(config.workers.device, "cpu");
  EXPECT_EQ(config.workers.gpus, (std::vector<int>{0, 2}));
  EXPECT_EQ(config.workers.slots, 3);
  EXPECT_FALSE(config.cache_enabled);
  EXPECT_EQ(config.log_level, "debug");
  EXPECT_EQ(config.prompts_dir, "/srv/my-prompts");
}

TEST(ConfigTest, UnknownKeysAndSectionsAreErrors) {
  Config config;
  Status s = ApplyConfigText("[eval]\ntrails = 3\n", "a.toml", config);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("trails"), std::string::npos);
  EXPECT_FALSE(ApplyConfigText("[evil]\nx = 1\n", "a.toml", config).ok());
}

TEST(ConfigTest, AMistypedKeyOrSectionGetsADidYouMean) {
  Config config;
  EXPECT_EQ(ApplyConfigText("[eval]\ntrails = 3\n", "a.toml", config).message(),
            "a.toml: unknown key 'trails' in [eval] (did you mean 'trials'?)");
  EXPECT_EQ(ApplyConfigText("[worker]\nslots = 3\n", "a.toml", config).message(),
            "a.toml: unknown section [worker] (did you mean 'workers'?)");
  EXPECT_EQ(ApplyConfigText("[llm.openai]\nbase_ulr = \"x\"\n", "a.toml", config).message(),
            "a.toml: unknown key 'base_ulr' in [llm.openai] (did you mean 'base_url'?)");
  EXPECT_EQ(ApplyConfigText("[eval]\nturbo = 3\n", "a.toml", config).message(),
            "a.toml: unknown key 'turbo' in [eval]");
}

// [workers] is checked as the flags are (workers/settings.h): what --slots refuses, the file
// refuses too, in the same words.
TEST(ConfigTest, WorkerSettingsAreCheckedAsTheirFlagsAre) {
  Config config;
  EXPECT_EQ(ApplyConfigText("[workers]\nslots = 0\n", "a.toml", config).message(),
            "a.toml: [workers] setting 'slots' = 0: must lie in [1, 1024]");
  EXPECT_EQ(ApplyConfigText("[workers]\ngpus = [0, -1]\n", "a.toml", config).message(),
            "a.toml: [workers] setting 'gpus' = [0,-1]: each must be at least 0");
  EXPECT_EQ(ApplyConfigText("[workers]\ngpus = \"0,1\"\n", "a.toml", config).message(),
            "a.toml: [workers] setting 'gpus' = \"0,1\": must be a list of integers");
  EXPECT_EQ(ApplyConfigText("[workers]\ndevice = \"tpu\"\n", "a.toml", config).message(),
            "a.toml: [workers] setting 'device' = \"tpu\": must be one of auto, cuda, cpu");
  EXPECT_EQ(ApplyConfigText("[workers]\nslot = 2\n", "a.toml", config).message(),
            "a.toml: unknown key 'slot' in [workers] (did you mean 'slots'?)");
  EXPECT_EQ(config.workers.slots, 0);  // All or none: nothing of a refused file stays.
}

// The worker-process settings moved from [eval] to [workers]; a file written before says where.
TEST(ConfigTest, AKeyOfAnotherSectionIsToldWhereItBelongs) {
  Config config;
  EXPECT_EQ(ApplyConfigText("[eval]\njudge_threads = 2\n", "a.toml", config).message(),
            "a.toml: [eval] judge_threads: it is a setting of [workers]; move it there");
  EXPECT_EQ(ApplyConfigText("[workers]\ntrials = 2\n", "a.toml", config).message(),
            "a.toml: [workers] trials: it is a setting of [eval]; move it there");
  ASSERT_TRUE(ApplyConfigText("[workers]\njudge_threads = 2\nprepare_ahead = 0\n"
                              "reference_cache_mb = 0\nlock_patience_s = 0\n",
                              "a.toml", config)
                  .ok());
  EXPECT_EQ(config.workers.judge_threads, 2);
  EXPECT_EQ(config.workers.prepare_ahead, 0);
  EXPECT_DOUBLE_EQ(config.workers.reference_cache_mb, 0);
  EXPECT_DOUBLE_EQ(config.workers.lock_patience_s, 0);
}

TEST(ConfigTest, GpusFromTheFileSayWhereTheyCameFrom) {
  Config config;
  EXPECT_EQ(config.gpus_origin, "--gpus");
  ASSERT_TRUE(ApplyConfigText("[workers]\ngpus = [1]\n", "my.toml", config).ok());
  EXPECT_EQ(config.gpus_origin, "my.toml: [workers] gpus");
}

// The example file of docs/configuration.md works as written, on any machine: copied to
// ./adaexplore.toml it loads, and it names no GPU or interpreter that this machine may lack.
TEST(ConfigTest, TheDocumentedExampleLoadsAsWritten) {
  std::ifstream in(std::string(ADAEXPLORE_SOURCE_DIR) + "/docs/configuration.md");
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t section = doc.find("# Configuration");
  ASSERT_NE(section, std::string::npos);
  const size_t begin = doc.find("```toml\n", section);
  ASSERT_NE(begin, std::string::npos);
  const size_t end = doc.find("```", begin + 8);
  const std::string example = doc.substr(begin + 8, end - begin - 8);
  Config config;
  Status loaded = ApplyConfigText(example, "docs/configuration.md", config);
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  EXPECT_TRUE(config.workers.gpus.empty());
  EXPECT_TRUE(config.workers.python.empty());
  EXPECT_EQ(config.workers.device, "auto");
}

TEST(ConfigTest, WrongTypesAndBadValuesAreErrors) {
  Config config;
  EXPECT_FALSE(ApplyConfigText("[eval]\ntrials = \"five\"\n", "a.toml", config).ok());
  EXPECT_FALSE(ApplyConfigText("[eval]\ntrials = 0\n", "a.toml", config).ok());
  EXPECT_FALSE(ApplyConfigText("[eval]\nprecision = \"fp8\"\n", "a.toml", config).ok());
  EXPECT_FALSE(ApplyConfigText("[workers]\ndevice = \"tpu\"\n", "a.toml", config).ok());
  EXPECT_FALSE(ApplyConfigText("[eval]\npytorch_compute = \"rarely\"\n", "a.toml", config).ok());
}

TEST(ConfigTest, PytorchComputePolicy) {
  Config config;
  EXPECT_EQ(config.profile.pytorch_compute, PytorchCompute::kAllowed);
  ASSERT_TRUE(ApplyConfigText("[eval]\npytorch_compute = \"forbidden\"\n", "a.toml", config).ok());
  EXPECT_EQ(config.profile.pytorch_compute, PytorchCompute::kForbidden);
}

TEST(ConfigTest, SyntaxErrorNamesTheLine) {
  Config config;
  Status s = ApplyConfigText("[eval]\n\ntrials = = 3\n", "bad.toml", config);
  EXPECT_EQ(s.code(), StatusCode::kParseError);
  EXPECT_NE(s.message().find("bad.toml:3"), std::string::npos) << s.message();
}

TEST(ConfigTest, PrecisionSetsStrictTolerances) {
  Config config;
  ASSERT_TRUE(ApplyConfigText("[eval]\nprecision = \"bf16\"\n", "a.toml", config).ok());
  EXPECT_DOUBLE_EQ(config.profile.job.atol, 1e-2);
}

TEST(ConfigTest, FileEvalSettingsAreKeptForFlagsToReapply) {
  Config config;
  ASSERT_TRUE(ApplyConfigText("[eval]\ntrials = 3\natol = 1e-3\ncompile_baseline = true\n",
                              "a.toml", config)
                  .ok());
  EXPECT_EQ(config.eval_file,
            (nlohmann::json{{"trials", 3}, {"atol", 1e-3}, {"compile_baseline", true}}));
  EXPECT_DOUBLE_EQ(config.profile.job.atol, 1e-3);
  // A bad value names the file and the check.
  Status s = ApplyConfigText("[eval]\nmemory_limit_mb = -5\n", "b.toml", config);
  EXPECT_NE(s.message().find("b.toml"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("memory_limit_mb"), std::string::npos) << s.message();
}

TEST(EvalSettingsTest, RoundTripAndOnlyWhatIsGiven) {
  EvalProfile p = StrictProfile();
  SetPrecision(p, Precision::kBf16);
  p.job.trials = 7;
  p.job.atol = 3e-3;
  p.pytorch_compute = PytorchCompute::kForbidden;
  EvalProfile again = StrictProfile();
  ASSERT_TRUE(ApplyEvalSettings(EvalSettings(p), again).ok());
  EXPECT_EQ(EvalSettings(again), EvalSettings(p));
  EXPECT_EQ(again.Fingerprint(), p.Fingerprint());
  // A setting that is not given is left alone (no precision: the tolerance stays).
  ASSERT_TRUE(ApplyEvalSettings({{"trials", 2}}, again).ok());
  EXPECT_EQ(again.job.trials, 2);
  EXPECT_DOUBLE_EQ(again.job.atol, 3e-3);
}

TEST(EvalSettingsTest, BadSettingsChangeNothing) {
  EvalProfile p = StrictProfile();
  const nlohmann::json before = EvalSettings(p);
  Status s = ApplyEvalSettings({{"trials", 3}, {"timeout_s", "long"}}, p);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("timeout_s"), std::string::npos) << s.message();
  EXPECT_FALSE(ApplyEvalSettings({{"trails", 3}}, p).ok());
  EXPECT_FALSE(ApplyEvalSettings({{"trials", 0}}, p).ok());
  EXPECT_FALSE(ApplyEvalSettings({{"precision", "fp8"}}, p).ok());
  EXPECT_FALSE(ApplyEvalSettings(nlohmann::json::array(), p).ok());
  EXPECT_EQ(EvalSettings(p), before);
}

TEST(ConfigTest, SearchConstantsAreSettings) {
  Config config;
  ASSERT_TRUE(ApplyConfigText("[search]\nexploration = 0.5\nmemory_window = 3\n"
                              "reward_speedup_max = 20\n",
                              "a.toml", config)
                  .ok());
  EXPECT_DOUBLE_EQ(config.search.explore.exploration, 0.5);
  EXPECT_EQ(config.search.explore.memory_window, 3);
  EXPECT_DOUBLE_EQ(config.search.rewards.speedup_max, 20);
  EXPECT_DOUBLE_EQ(config.search.explore.p_large, 0.2);  // The reference's, not given.
  EXPECT_EQ(config.search_file.size(), 3u);
  Status bad = ApplyConfigText("[search]\np_large = 2\n", "b.toml", config);
  EXPECT_NE(bad.message().find("b.toml"), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("p_large"), std::string::npos) << bad.message();
  EXPECT_FALSE(ApplyConfigText("[search]\nalpha = \"high\"\n", "c.toml", config).ok());
  EXPECT_FALSE(ApplyConfigText("[search]\nexploraton = 1\n", "d.toml", config).ok());
}

TEST(ConfigTest, MissingOptionalFileIsFine) {
  Config config;
  EXPECT_TRUE(LoadConfigFile("/nonexistent/adaexplore.toml", false, config).ok());
  EXPECT_FALSE(LoadConfigFile("/nonexistent/adaexplore.toml", true, config).ok());
}

}  // namespace
}  // namespace adaexplore
