#include "core/enum_names.h"

#include <gtest/gtest.h>

#include "core/enum_json.h"

namespace adaexplore {

enum class Colour { kRed, kDarkBlue };

template <>
struct EnumTraits<Colour> {
  static constexpr std::array<std::pair<Colour, std::string_view>, 2> kNames = {{
      {Colour::kRed, "red"},
      {Colour::kDarkBlue, "dark_blue"},
  }};
};

namespace {

TEST(EnumNamesTest, EveryValueHasOneNameThatParsesBack) {
  EXPECT_EQ(EnumName(Colour::kDarkBlue), "dark_blue");
  EXPECT_EQ(EnumFromName<Colour>("red"), Colour::kRed);
  EXPECT_EQ(EnumFromName<Colour>("Red"), std::nullopt);
  EXPECT_EQ(EnumNameList<Colour>(), (std::vector<std::string_view>{"red", "dark_blue"}));
}

TEST(EnumNamesTest, JsonHoldsTheNameNotTheNumber) {
  const nlohmann::json j = {{"colour", Colour::kDarkBlue}};
  EXPECT_EQ(j.dump(), R"({"colour":"dark_blue"})");
  EXPECT_EQ(j["colour"].get<Colour>(), Colour::kDarkBlue);
}

TEST(EnumNamesTest, JsonOutsideTheTableIsRefusedWithTheChoices) {
  try {
    (void)nlohmann::json("green").get<Colour>();
    FAIL() << "an unknown name was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("red, dark_blue"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)nlohmann::json(1).get<Colour>(), std::invalid_argument);  // Not a number.
}

}  // namespace
}  // namespace adaexplore
