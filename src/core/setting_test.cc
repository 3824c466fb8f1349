#include "core/setting.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

struct Knobs {
  int runs = 5;
  double ratio = 0.5;
  bool fast = false;
  std::string mode = "a";
  std::string note;
};

std::vector<Setting<Knobs>> Table() {
  std::vector<Setting<Knobs>> table(5);
  table[0] = {.name = "runs", .kind = SettingKind::kInteger, .flag = "--runs", .min = 1};
  BindField(table[0], &Knobs::runs);
  table[1] = {.name = "ratio", .kind = SettingKind::kNumber, .min = 0, .max = 1};
  BindField(table[1], &Knobs::ratio);
  table[2] = {.name = "fast", .kind = SettingKind::kBoolean};
  BindField(table[2], &Knobs::fast);
  table[3] = {.name = "mode", .kind = SettingKind::kChoice, .choices = {"a", "b"}};
  BindField(table[3], &Knobs::mode);
  table[4] = {.name = "note", .kind = SettingKind::kText, .flag = "--note"};
  BindField(table[4], &Knobs::note);
  return table;
}

TEST(SettingTest, AppliesKnownSettingsAndGivesThemBack) {
  Knobs k;
  ASSERT_TRUE(ApplySettings(Table(), {{"runs", 7}, {"ratio", 1}, {"mode", "b"}}, k, "test").ok());
  EXPECT_EQ(k.runs, 7);
  EXPECT_EQ(k.ratio, 1.0);
  EXPECT_EQ(k.mode, "b");
  EXPECT_EQ(
      SettingsJson(Table(), k),
      (nlohmann::json{{"runs", 7}, {"ratio", 1.0}, {"fast", false}, {"mode", "b"}, {"note", ""}}));
}

TEST(SettingTest, RefusesUnknownNamesWrongKindsAndValuesOutOfRangeAllOrNone) {
  Knobs k;
  for (const nlohmann::json& bad :
       {nlohmann::json{{"walks", 1}}, nlohmann::json{{"runs", 0}}, nlohmann::json{{"runs", 2.5}},
        nlohmann::json{{"ratio", 1.5}}, nlohmann::json{{"fast", 1}}, nlohmann::json{{"mode", "c"}},
        nlohmann::json{{"note", 3}}, nlohmann::json{{"runs", 9}, {"ratio", -1}}}) {
    Status s = ApplySettings(Table(), bad, k, "test");
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find(bad.begin().key()), std::string::npos) << s.message();
  }
  EXPECT_EQ(k.runs, 5);  // Nothing of a refused set was kept.
}

TEST(SettingTest, FlagTextIsReadByKindAndErrorsNameTheFlag) {
  const std::vector<Setting<Knobs>> table = Table();
  EXPECT_EQ(*SettingValueFromText(table[0], "3"), 3);
  Result<nlohmann::json> zero = SettingValueFromText(table[0], "0");
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("--runs 0"), std::string::npos);
  // No upper bound: said as one, not as a number of 300 digits or "inf".
  EXPECT_NE(zero.status().message().find("must be at least 1"), std::string::npos)
      << zero.status().message();
  Result<nlohmann::json> over = SettingValueFromText(table[1], "1.5");
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.status().message().find("must lie in [0, 1]"), std::string::npos);
  EXPECT_FALSE(SettingValueFromText(table[0], "three").ok());
  EXPECT_EQ(*SettingValueFromText(table[3], "a"), "a");
  // Text is taken as given, even where it would parse as a number.
  EXPECT_EQ(*SettingValueFromText(table[4], "12"), "12");
  EXPECT_EQ(*SettingValueFromText(table[4], "high effort"), "high effort");
}

}  // namespace
}  // namespace adaexplore
