#include "core/closest.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

TEST(ClosestTest, TheClosestNameWithinATypo) {
  const std::vector<std::string> known = {"--trials", "--timeout", "--timed-runs", "--task"};
  EXPECT_EQ(Closest("--trails", known), "--trials");
  EXPECT_EQ(Closest("--timout", known), "--timeout");
  EXPECT_EQ(Closest("--turbo-mode", known), "");  // Nothing is that close.
  EXPECT_EQ(Closest("--trials", known), "");      // Known names need no hint.
  // Two letters swapped are one slip: closer than two letters changed (eval has --traces too).
  EXPECT_EQ(Closest("--trails", {"--traces", "--trials"}), "--trials");
  EXPECT_EQ(Closest("--trails", {"--trials", "--traces"}), "--trials");
}

TEST(ClosestTest, ASuffixOnlyWhenSomethingIsClose) {
  EXPECT_EQ(DidYouMeanSuffix("timout_s", {"timeout_s", "trials"}), " (did you mean 'timeout_s'?)");
  EXPECT_EQ(DidYouMeanSuffix("turbo", {"timeout_s", "trials"}), "");
}

}  // namespace
}  // namespace adaexplore
