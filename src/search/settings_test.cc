#include "search/settings.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

TEST(SearchSettingsTest, RoundTripAndDefaultsAreTheReferences) {
  SearchSettings defaults;
  const nlohmann::json json = SearchSettingsJson(defaults);
  EXPECT_EQ(json["exploration"], 0.3);
  EXPECT_EQ(json["p_large"], 0.2);
  EXPECT_EQ(json["memory_window"], 5);
  EXPECT_EQ(json["reward_correct_high"], 1.6);
  SearchSettings changed;
  ASSERT_TRUE(
      ApplySearchSettings(
          {{"exploration", 0.5}, {"alpha", 0.25}, {"pool_size", 3}, {"reward_speedup_max", 20.0}},
          changed)
          .ok());
  EXPECT_EQ(changed.explore.exploration, 0.5);
  EXPECT_EQ(changed.explore.alpha, 0.25);
  EXPECT_EQ(changed.explore.pool_size, 3);
  EXPECT_EQ(changed.rewards.speedup_max, 20.0);
  EXPECT_EQ(changed.explore.p_large, 0.2);  // Not given: unchanged.
  SearchSettings again;
  ASSERT_TRUE(ApplySearchSettings(SearchSettingsJson(changed), again).ok());
  EXPECT_EQ(SearchSettingsJson(again), SearchSettingsJson(changed));
  // The reward follows its settings.
  EXPECT_DOUBLE_EQ(Reward({.compiled = true, .correct = true, .speedup = 20}, again.rewards), 1.6);
  EXPECT_LT(Reward({.compiled = true, .correct = true, .speedup = 10}, again.rewards), 1.6);
}

TEST(SearchSettingsTest, BadSettingsAreErrorsThatChangeNothing) {
  SearchSettings s;
  const nlohmann::json before = SearchSettingsJson(s);
  for (const nlohmann::json& bad :
       {nlohmann::json{{"p_large", 1.5}}, nlohmann::json{{"alpha", -0.1}},
        nlohmann::json{{"memory_window", 0}}, nlohmann::json{{"expand_ratio", 0.0}},
        nlohmann::json{{"reward_speedup_min", 5.0}, {"reward_speedup_max", 2.0}},
        nlohmann::json{{"exploraton", 0.3}}, nlohmann::json{{"pool_size", "five"}},
        nlohmann::json::array()}) {
    EXPECT_FALSE(ApplySearchSettings(bad, s).ok()) << bad.dump();
  }
  Status s2 = ApplySearchSettings({{"pool_size", "five"}}, s);
  EXPECT_NE(s2.message().find("pool_size"), std::string::npos);
  EXPECT_EQ(SearchSettingsJson(s), before);
}

}  // namespace
}  // namespace adaexplore
