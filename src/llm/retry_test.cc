#include "llm/retry.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

TEST(RetryTest, BackoffGrowsExponentiallyUpToTheCapWithJitter) {
  RetryPolicy policy{.initial_backoff_s = 1, .max_backoff_s = 10, .jitter = 0.5};
  std::mt19937_64 random(1);
  for (int trial = 0; trial < 100; ++trial) {
    double second = BackoffSeconds(policy, 2, std::nullopt, random);
    EXPECT_GE(second, 0.5);
    EXPECT_LE(second, 1.0);
    double fourth = BackoffSeconds(policy, 4, std::nullopt, random);
    EXPECT_GE(fourth, 2.0);
    EXPECT_LE(fourth, 4.0);
    double late = BackoffSeconds(policy, 30, std::nullopt, random);
    EXPECT_GE(late, 5.0);
    EXPECT_LE(late, 10.0);
  }
}

TEST(RetryTest, RetryAfterWinsButIsCapped) {
  RetryPolicy policy{.max_retry_after_s = 30};
  std::mt19937_64 random(2);
  double wait = BackoffSeconds(policy, 2, 7.0, random);
  EXPECT_GE(wait, 7.0);
  EXPECT_LE(wait, 7.7);
  EXPECT_LE(BackoffSeconds(policy, 2, 3600.0, random), 33.0);
}

TEST(RetryTest, ParsesRetryAfterSecondsAndDates) {
  EXPECT_EQ(ParseRetryAfter("120", 0), 120.0);
  EXPECT_EQ(ParseRetryAfter(" 1.5 ", 0), 1.5);
  // Wed, 21 Oct 2015 07:28:00 GMT is 1445412480.
  std::optional<double> from_date =
      ParseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", 1445412480.0 - 30);
  ASSERT_TRUE(from_date.has_value());
  EXPECT_DOUBLE_EQ(*from_date, 30.0);
  EXPECT_EQ(ParseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", 1445412480.0 + 5), 0.0);
  EXPECT_FALSE(ParseRetryAfter("soon", 0).has_value());
  EXPECT_FALSE(ParseRetryAfter("", 0).has_value());
  EXPECT_FALSE(ParseRetryAfter("-3", 0).has_value());
}

}  // namespace
}  // namespace adaexplore
