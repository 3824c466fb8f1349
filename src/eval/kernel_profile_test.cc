#include "eval/kernel_profile.h"

#include <gtest/gtest.h>

#include <utility>

namespace adaexplore {
namespace {

ProfiledKernel Kernel(double us, double dram, double sm, double occupancy, std::string limiter = "",
                      bool own = true) {
  return {.name = own ? "own_kernel" : "at::native::vectorized_elementwise_kernel",
          .duration_us = us,
          .dram_fraction = dram,
          .sm_fraction = sm,
          .achieved_occupancy = occupancy,
          .occupancy_limiter = std::move(limiter),
          .l2_hit_rate = 0.5,
          .own = own};
}

// The known answers of issue 39's targets, as Nsight Compute reports such kernels on an H200.
TEST(KernelProfileTest, KernelsWhoseAnswerIsKnown) {
  // A large copy: DRAM near its peak.
  std::optional<ProfileSummary> copy =
      SummariseProfile({.tool = "ncu", .kernels = {Kernel(900, 0.91, 0.22, 0.9)}, .call_us = 910});
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->bottleneck, Bottleneck::kMemory);
  EXPECT_EQ(copy->text, "memory-bound at 91% of DRAM peak (SM 22%); occupancy 90%");
  // Without hardware counters only the launch's resources are known: the line says which.
  ProfiledKernel estimated = Kernel(900, 0.91, 0.22, 0.9, "registers");
  estimated.theoretical_occupancy = std::exchange(estimated.achieved_occupancy, std::nullopt);
  EXPECT_EQ(SummariseProfile({.tool = "trace", .kernels = {estimated}, .call_us = 910})->text,
            "memory-bound at 91% of DRAM peak (SM 22%); theoretical occupancy 90%, limited by "
            "registers");
  // torch.mm on large bf16 matrices, profiled as a task's reference (whose kernels are all its
  // own): the tensor pipes busy. As a candidate's call it would be PyTorch-dominated (below).
  std::optional<ProfileSummary> mm = SummariseProfile(
      {.tool = "ncu", .kernels = {Kernel(400, 0.3, 0.86, 0.12, "registers")}, .call_us = 420});
  ASSERT_TRUE(mm);
  EXPECT_EQ(mm->bottleneck, Bottleneck::kCompute);
  EXPECT_EQ(mm->text,
            "compute-bound at 86% of SM peak (DRAM 30%); occupancy 12%, limited by registers");
  // A tiny kernel in a call that mostly launches.
  std::optional<ProfileSummary> tiny =
      SummariseProfile({.tool = "ncu", .kernels = {Kernel(2, 0.05, 0.03, 0.1)}, .call_us = 20});
  ASSERT_TRUE(tiny);
  EXPECT_EQ(tiny->bottleneck, Bottleneck::kLaunch);
  EXPECT_EQ(tiny->text,
            "launch-bound: the GPU is busy 10% of the call; the rest is the host launching work "
            "(fewer, larger kernels or fusion help most)");
  // A deliberately low-occupancy kernel: neither unit busy.
  std::optional<ProfileSummary> low = SummariseProfile(
      {.tool = "ncu", .kernels = {Kernel(300, 0.18, 0.11, 0.06, "shared_memory")}});
  ASSERT_TRUE(low);
  EXPECT_EQ(low->bottleneck, Bottleneck::kLatency);
  EXPECT_EQ(low->text,
            "latency-bound: neither memory (18% of DRAM peak) nor compute (11% of SM peak) is "
            "busy; occupancy 6%, limited by shared memory");
  // A call that is PyTorch's kernels only.
  std::optional<ProfileSummary> pytorch = SummariseProfile(
      {.kernels = {Kernel(50, 0.8, 0.2, 0.9, "", false), Kernel(10, 0.1, 0.1, 0.5)}});
  ASSERT_TRUE(pytorch);
  EXPECT_EQ(pytorch->bottleneck, Bottleneck::kPytorch);
  EXPECT_NEAR(pytorch->pytorch_share, 50.0 / 60.0, 1e-12);
  EXPECT_EQ(pytorch->text,
            "PyTorch-dominated: 83% of the kernel time is PyTorch's own kernels, not this "
            "kernel's");
}

TEST(KernelProfileTest, FiguresAreWeightedByDurationOverTheOwnKernels) {
  std::optional<ProfileSummary> s = SummariseProfile(
      {.kernels = {Kernel(300, 0.9, 0.1, 0.8, "block_size"), Kernel(100, 0.1, 0.5, 0.2),
                   Kernel(100, 0.0, 0.0, 0.0, "", false)}});
  ASSERT_TRUE(s);
  EXPECT_NEAR(*s->dram_fraction, (300 * 0.9 + 100 * 0.1) / 400, 1e-12);
  EXPECT_NEAR(*s->sm_fraction, (300 * 0.1 + 100 * 0.5) / 400, 1e-12);
  EXPECT_EQ(s->occupancy_limiter, "block_size");  // The longest own kernel's.
  EXPECT_NEAR(s->pytorch_share, 0.2, 1e-12);
  EXPECT_FALSE(s->device_share);  // The call's time was not given.
  EXPECT_EQ(s->bottleneck, Bottleneck::kMemory);
}

TEST(KernelProfileTest, NoKernelsOrMissingFiguresStillSaySomethingTrue) {
  EXPECT_FALSE(SummariseProfile(ProfileFacts{}));
  EXPECT_FALSE(SummariseProfile({.tool = "ncu", .kernels = {Kernel(0, 0.5, 0.5, 0.5)}}));
  ProfiledKernel bare{.name = "k", .duration_us = 5};
  std::optional<ProfileSummary> s = SummariseProfile({.tool = "ncu", .kernels = {bare}});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->bottleneck, Bottleneck::kLatency);
  EXPECT_EQ(s->text,
            "latency-bound: neither memory (? of DRAM peak) nor compute (? of SM peak) "
            "is busy");
  EXPECT_EQ(SolWords(0.354), " at 35% of the speed of light");
  EXPECT_EQ(SolWords(std::nullopt), "");
  EXPECT_EQ(EnumName(Bottleneck::kPytorch), "pytorch_dominated");
}

}  // namespace
}  // namespace adaexplore
