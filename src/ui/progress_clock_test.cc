#include "ui/progress_clock.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

using std::chrono::seconds;

TEST(ProgressClockTest, DurationsReadAsAPersonWouldWriteThem) {
  EXPECT_EQ(ShortDuration(seconds(45)), "45s");
  EXPECT_EQ(ShortDuration(seconds(185)), "3m05s");
  EXPECT_EQ(ShortDuration(seconds(3720)), "1h02m");
}

TEST(ProgressClockTest, TheEstimateComesOnceSomethingIsDone) {
  EXPECT_EQ(ProgressClock(0, 4, seconds(5)), "5s");
  EXPECT_EQ(ProgressClock(1, 4, seconds(90)), "1m30s · about 4m30s left");
  EXPECT_EQ(ProgressClock(4, 4, seconds(90)), "1m30s");
  EXPECT_EQ(ProgressClockJson(1, 4, seconds(90)),
            (nlohmann::json{{"elapsed_s", 90.0}, {"eta_s", 270.0}}));
  EXPECT_TRUE(ProgressClockJson(0, 4, seconds(5))["eta_s"].is_null());
}

}  // namespace
}  // namespace adaexplore
