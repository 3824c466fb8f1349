#include "app/devices.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace adaexplore {
namespace {

class DevicesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* old = std::getenv("CUDA_VISIBLE_DEVICES");
    had_ = old != nullptr;
    if (had_) {
      saved_ = old;
    }
  }
  void TearDown() override {
    if (had_) {
      setenv("CUDA_VISIBLE_DEVICES", saved_.c_str(), 1);
    } else {
      unsetenv("CUDA_VISIBLE_DEVICES");
    }
  }
  bool had_ = false;
  std::string saved_;
};

TEST_F(DevicesTest, CpuOnRequest) {
  Result<DevicePlan> plan = PlanDevices({.device = "cpu"});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->kind, "cpu");
}

TEST_F(DevicesTest, VisibleDevicesBecomeOneWorkerEach) {
  setenv("CUDA_VISIBLE_DEVICES", "2, 5", 1);
  Result<DevicePlan> plan = PlanDevices({.device = "auto"});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->kind, "cuda");
  EXPECT_EQ(plan->gpus, (std::vector<std::string>{"2", "5"}));
  plan = PlanDevices({.device = "auto", .gpus = {1}});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->gpus, std::vector<std::string>{"5"});
  EXPECT_EQ(PlanDevices({.device = "auto", .gpus = {7}}).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(DevicesTest, NoGpuMeansCpuUnlessCudaWasDemanded) {
  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  EXPECT_EQ(PlanDevices({.device = "auto"})->kind, "cpu");
  EXPECT_EQ(PlanDevices({.device = "cuda"}).status().code(), StatusCode::kUnavailable);
}

TEST_F(DevicesTest, AGpuThatIsNotVisibleNamesWhereItWasAskedFor) {
  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  Result<DevicePlan> plan =
      PlanDevices({.device = "auto", .gpus = {0}}, "./adaexplore.toml: [workers] gpus");
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().message(),
            "./adaexplore.toml: [workers] gpus: GPU 0 is not visible (0 visible; leave the GPUs "
            "out, or use --device cpu)");
  setenv("CUDA_VISIBLE_DEVICES", "3", 1);
  EXPECT_EQ(PlanDevices({.device = "auto", .gpus = {1}}).status().message(),
            "--gpus: GPU 1 is not visible (1 visible)");
}

}  // namespace
}  // namespace adaexplore
