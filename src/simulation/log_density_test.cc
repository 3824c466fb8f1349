#include "simulation/log_density.h"

#include <gtest/gtest.h>

#include <cmath>

namespace adaexplore {
namespace {

TEST(LogDensityTest, QuantilesOfTheSample) {
  EXPECT_EQ(QuantileOf({}, 0.5), 0);
  EXPECT_DOUBLE_EQ(QuantileOf({3, 1, 2}, 0.5), 2);
  EXPECT_DOUBLE_EQ(QuantileOf({1, 2}, 0.25), 1.25);
  const LogDensity density({1, 2, 4, -1, 0});  // Non-positive values are left out.
  EXPECT_EQ(density.size(), 3u);
  EXPECT_NEAR(density.Quantile(0.5), 2, 1e-12);
  EXPECT_NEAR(density.Quantile(0), 1, 1e-12);
}

TEST(LogDensityTest, DrawsFollowTheSample) {
  std::vector<double> sample;
  for (int i = 0; i < 200; ++i) {
    sample.push_back(std::exp(0.01 * (i - 100)));  // log-uniform on [-1, 1).
  }
  const LogDensity density(sample);
  EXPECT_GT(density.bandwidth(), 0);
  EXPECT_LT(density.bandwidth(), 0.5);
  std::mt19937_64 random(7);
  std::vector<double> draws;
  for (int i = 0; i < 20000; ++i) {
    draws.push_back(density.Draw(random));
  }
  EXPECT_NEAR(std::log(QuantileOf(draws, 0.5)), 0, 0.05);
  EXPECT_NEAR(std::log(QuantileOf(draws, 0.25)), -0.5, 0.1);
  EXPECT_NEAR(std::log(QuantileOf(draws, 0.75)), 0.5, 0.1);
}

TEST(LogDensityTest, OneValueAndNoValue) {
  std::mt19937_64 random(1);
  const LogDensity one({1.5, 1.5, 1.5});
  EXPECT_EQ(one.bandwidth(), 0);
  EXPECT_DOUBLE_EQ(one.Draw(random), 1.5);
  const LogDensity none(std::vector<double>{});
  EXPECT_EQ(none.Draw(random), 1);
  EXPECT_EQ(none.Quantile(0.5), 1);
}

}  // namespace
}  // namespace adaexplore
