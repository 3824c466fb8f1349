#include "eval/occupancy.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

// The H200's per-SM limits, as torch.cuda.get_device_properties reports them.
constexpr SmLimits kH200{.registers = 65536, .shared_bytes = 233472, .threads = 2048, .sms = 132};

// Launch shapes as the kernel trace recorded them on the H200 (bench/results/
// 2026-12-04-h200-profiler-probe/trace_args.jsonl) and shapes built to hit each limiter.
TEST(OccupancyTest, EachLimiterAsTheOccupancyCalculatorFindsIt) {
  // cuBLAS's bf16 8192² GEMM: one block of 12 warps per SM by its 168 registers a thread (and its
  // 188,636 bytes of shared memory), as Nsight Compute said (14.8% achieved, 18.75% theoretical).
  std::optional<Occupancy> gemm = TheoreticalOccupancy(
      {.registers = 168, .shared_bytes = 188636, .block_threads = 384, .grid_blocks = 132}, kH200);
  ASSERT_TRUE(gemm);
  EXPECT_DOUBLE_EQ(gemm->fraction, 12.0 / 64.0);
  EXPECT_EQ(gemm->limiter, "registers");
  // A Triton elementwise kernel of 128-thread blocks over 65,536 blocks: the SM is full.
  std::optional<Occupancy> elementwise = TheoreticalOccupancy(
      {.registers = 18, .shared_bytes = 0, .block_threads = 128, .grid_blocks = 65536}, kH200);
  ASSERT_TRUE(elementwise);
  EXPECT_DOUBLE_EQ(elementwise->fraction, 1.0);
  EXPECT_EQ(elementwise->limiter, "");
  // 48 KiB of shared memory a block: four blocks of eight warps.
  std::optional<Occupancy> shared = TheoreticalOccupancy(
      {.registers = 32, .shared_bytes = 48 << 10, .block_threads = 256, .grid_blocks = 4096},
      kH200);
  ASSERT_TRUE(shared);
  EXPECT_DOUBLE_EQ(shared->fraction, 0.5);
  EXPECT_EQ(shared->limiter, "shared_memory");
  // One-warp blocks: the 32 blocks an SM holds are half its 64 warps.
  std::optional<Occupancy> small_blocks = TheoreticalOccupancy(
      {.registers = 16, .shared_bytes = 0, .block_threads = 32, .grid_blocks = 1 << 20}, kH200);
  ASSERT_TRUE(small_blocks);
  EXPECT_DOUBLE_EQ(small_blocks->fraction, 0.5);
  EXPECT_EQ(small_blocks->limiter, "block_size");
  // One block for the whole GPU: the grid, whatever the resources.
  std::optional<Occupancy> one_block = TheoreticalOccupancy(
      {.registers = 32, .shared_bytes = 0, .block_threads = 1024, .grid_blocks = 1}, kH200);
  ASSERT_TRUE(one_block);
  EXPECT_NEAR(one_block->fraction, (1.0 / 132) * 32 / 64, 1e-12);
  EXPECT_EQ(one_block->limiter, "grid");
}

TEST(OccupancyTest, UnknownLimitsOrAnIncompleteLaunchGiveNoFigure) {
  EXPECT_FALSE(TheoreticalOccupancy(
      {.registers = 32, .shared_bytes = 0, .block_threads = 128, .grid_blocks = 8}, SmLimits{}));
  EXPECT_FALSE(TheoreticalOccupancy({.registers = 32, .grid_blocks = 8}, kH200));
  EXPECT_FALSE(TheoreticalOccupancy({.registers = 32, .block_threads = 128}, kH200));
}

}  // namespace
}  // namespace adaexplore
