#include "core/saturating.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace adaexplore {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(SaturatingTest, AddsExactlyWhileTheSumFits) {
  EXPECT_EQ(SaturatingAdd(2, 3), 5);
  EXPECT_EQ(SaturatingAdd(kMax - 1, 1), kMax);
  EXPECT_EQ(SaturatingAdd(-4, 1), -3);
}

TEST(SaturatingTest, StopsAtTheEndsInsteadOfWrapping) {
  EXPECT_EQ(SaturatingAdd(kMax, kMax), kMax);
  EXPECT_EQ(SaturatingAdd(kMax, 1), kMax);
  EXPECT_EQ(SaturatingAdd(kMin, -1), kMin);
}

TEST(SaturatingTest, ConvertsFloatingSumsWithoutOverflow) {
  EXPECT_EQ(SaturatingInt(42.9), 42);
  EXPECT_EQ(SaturatingInt(2.0 * static_cast<double>(kMax)), kMax);
  EXPECT_EQ(SaturatingInt(static_cast<double>(kMax)), kMax);  // Rounds up to 2^63.
  EXPECT_EQ(SaturatingInt(-1e300), kMin);
  EXPECT_EQ(SaturatingInt(std::nan("")), 0);
}

}  // namespace
}  // namespace adaexplore
