#include "core/text.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

TEST(TextTest, LowerTrimAndLines) {
  EXPECT_EQ(Lower("You Cannot X_1"), "you cannot x_1");
  EXPECT_EQ(Trim("  \t a b \r\n"), "a b");
  EXPECT_EQ(Trim(" \n "), "");
  EXPECT_EQ(Trim("`*rule*`", "`*"), "rule");
  EXPECT_EQ(SplitLines("a\n\nb\n"), (std::vector<std::string_view>{"a", "", "b"}));
  EXPECT_EQ(SplitLines("a"), (std::vector<std::string_view>{"a"}));
  EXPECT_TRUE(SplitLines("").empty());
}

}  // namespace
}  // namespace adaexplore
