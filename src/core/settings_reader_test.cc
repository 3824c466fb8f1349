#include "core/settings_reader.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

TEST(SettingsReaderTest, ReadsWhatIsGivenAndNamesWhatIsWrong) {
  const nlohmann::json known = {{"a", 0}, {"b", ""}, {"c", 0.0}};
  int a = 1;
  std::string b = "kept";
  double c = 0;
  SettingsReader in({{"a", 7}, {"c", 2.5}}, known, "test");
  in.Read("a", a).Read("b", b).Read("c", c);
  ASSERT_TRUE(in.status().ok());
  EXPECT_EQ(a, 7);
  EXPECT_EQ(b, "kept");  // Not given: left alone.
  EXPECT_EQ(c, 2.5);
  EXPECT_TRUE(in.Has("a"));
  EXPECT_FALSE(in.Has("b"));

  SettingsReader unknown({{"z", 1}}, known, "test");
  EXPECT_EQ(unknown.status().message(), "unknown test setting 'z'");
  SettingsReader wrong({{"a", "seven"}, {"c", 4.0}}, known, "test");
  wrong.Read("a", a).Read("c", c);
  EXPECT_EQ(wrong.status().message(), "test setting 'a' has the wrong type");
  EXPECT_EQ(c, 2.5);  // Nothing is read after the first error.
  EXPECT_FALSE(SettingsReader(nlohmann::json::array(), known, "test").status().ok());
}

}  // namespace
}  // namespace adaexplore
