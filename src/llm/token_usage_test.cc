#include "llm/token_usage.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace adaexplore {
namespace {

using nlohmann::json;

TEST(TokenUsageTest, PlausibleCountsPassSilently) {
  std::vector<std::string> warnings;
  const json usage = {{"in", 1200}, {"zero", 0}, {"ceiling", kMaxTokensPerCall}, {"null", nullptr}};
  EXPECT_EQ(TokenCountField(usage, "in", warnings), 1200);
  EXPECT_EQ(TokenCountField(usage, "zero", warnings), 0);
  EXPECT_EQ(TokenCountField(usage, "ceiling", warnings), kMaxTokensPerCall);
  EXPECT_EQ(TokenCountField(usage, "null", warnings), 0);
  EXPECT_EQ(TokenCountField(usage, "absent", warnings), 0);
  EXPECT_EQ(TokenCountField(json::array(), "in", warnings), 0);  // Usage that is no object.
  EXPECT_TRUE(warnings.empty());
}

TEST(TokenUsageTest, AbsurdCountsAreClampedToTheCeiling) {
  std::vector<std::string> warnings;
  const json usage = {{"big", INT64_MAX}, {"bigger", UINT64_MAX}, {"over", kMaxTokensPerCall + 1}};
  EXPECT_EQ(TokenCountField(usage, "big", warnings), kMaxTokensPerCall);
  EXPECT_EQ(TokenCountField(usage, "bigger", warnings), kMaxTokensPerCall);
  EXPECT_EQ(TokenCountField(usage, "over", warnings), kMaxTokensPerCall);
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_EQ(warnings[1],
            "the reply's token count bigger = 18446744073709551615 is above 1000000000; "
            "counted as 1000000000");
}

TEST(TokenUsageTest, NegativeAndNonIntegerCountsAreDropped) {
  std::vector<std::string> warnings;
  const json usage = {{"negative", -3}, {"fraction", 2.5}, {"text", "12"}, {"flag", true}};
  for (const char* key : {"negative", "fraction", "text", "flag"}) {
    EXPECT_EQ(TokenCountField(usage, key, warnings), 0) << key;
  }
  ASSERT_EQ(warnings.size(), 4u);
  EXPECT_NE(warnings[0].find("negative = -3 is negative"), std::string::npos);
  EXPECT_NE(warnings[2].find("text = \"12\" is not a whole number"), std::string::npos);
}

TEST(TokenUsageTest, ClampKeepsThePartsWithinTheirWholes) {
  std::vector<std::string> warnings;
  TokenUsage usage{
      .input = 3 * kMaxTokensPerCall, .output = 10, .cached_input = 20, .reasoning = 11};
  ClampTokenUsage(usage, warnings);
  EXPECT_EQ(usage.input, kMaxTokensPerCall);
  EXPECT_EQ(usage.cached_input, 20);
  EXPECT_EQ(usage.output, 10);
  EXPECT_EQ(usage.reasoning, 10);
  EXPECT_EQ(warnings.size(), 2u);
  // Written to the cache: at most the input not read from it.
  TokenUsage written{.input = 10, .output = 1, .cached_input = 6, .cache_write = 7};
  warnings.clear();
  ClampTokenUsage(written, warnings);
  EXPECT_EQ(written.cache_write, 4);
  EXPECT_EQ(warnings.size(), 1u);
  TokenUsage fine{.input = 5, .output = 4, .cached_input = 5, .reasoning = 4};
  warnings.clear();
  ClampTokenUsage(fine, warnings);
  EXPECT_TRUE(warnings.empty());
}

// The stored form reads back as written; an entry of an earlier build has no cache_write.
TEST(TokenUsageTest, TheStoredFormRoundTrips) {
  const TokenUsage usage{
      .input = 100, .output = 7, .cached_input = 60, .cache_write = 30, .reasoning = 2};
  std::vector<std::string> warnings;
  const TokenUsage back = TokenUsageFromJson(TokenUsageJson(usage), warnings);
  EXPECT_EQ(TokenUsageJson(back), TokenUsageJson(usage));
  EXPECT_TRUE(warnings.empty());
  const TokenUsage old = TokenUsageFromJson({{"input", 9}, {"output", 1}}, warnings);
  EXPECT_EQ(old.cache_write, 0);
  EXPECT_EQ(old.input, 9);
}

}  // namespace
}  // namespace adaexplore
