#include "config/config.h"

#include <gtest/gtest.h>

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
)",
                              "test.toml", config)
                  .ok());
  EXPECT_EQ(config.profile.name, "paper");
  EXPECT_EQ(config.profile.criterion, "allclose");
  EXPECT_EQ(config.profile.trials, 3);
  EXPECT_DOUBLE_EQ(config.profile.timeout_s, 60.5);
  EXPECT_EQ(config.device, "cpu");
  EXPECT_EQ(config.gpus, (std::vector<int>{0, 2}));
  EXPECT_EQ(config.slots, 3);
  EXPECT_FALSE(config.cache_enabled);
  EXPECT_EQ(config.log_level, "debug");
}

TEST(ConfigTest, UnknownKeysAndSectionsAreErrors) {
  Config config;
  Status s = ApplyConfigText("[eval]\ntrails = 3\n", "a.toml", config);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("trails"), std::string::npos);
  EXPECT_FALSE(ApplyConfigText("[evil]\nx = 1\n", "a.toml", config).ok());
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
  EXPECT_EQ(config.profile.pytorch_compute, "allowed");
  ASSERT_TRUE(ApplyConfigText("[eval]\npytorch_compute = \"forbidden\"\n", "a.toml", config).ok());
  EXPECT_EQ(config.profile.pytorch_compute, "forbidden");
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
  EXPECT_DOUBLE_EQ(config.profile.atol, 1e-2);
}

TEST(ConfigTest, MissingOptionalFileIsFine) {
  Config config;
  EXPECT_TRUE(LoadConfigFile("/nonexistent/adaexplore.toml", false, config).ok());
  EXPECT_FALSE(LoadConfigFile("/nonexistent/adaexplore.toml", true, config).ok());
}

}  // namespace
}  // namespace adaexplore
