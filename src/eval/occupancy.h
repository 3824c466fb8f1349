#pragma once

// The theoretical occupancy of a kernel launch and what limits it, from what the kernel trace
// records of each launch (registers per thread, shared memory per block, block and grid size) and
// the device's per-SM limits, as CUDA's occupancy calculator computes it: the resident blocks per
// SM are the fewest any resource allows; a grid too small to give every SM that many blocks caps
// it further. An upper bound of the achieved occupancy (a hardware profiler's figure), measured
// equal to Nsight Compute's on the H200 for a bf16 cuBLAS GEMM (docs/profiling.md).
//
//   SmLimits h200{.registers = 65536, .shared_bytes = 233472, .threads = 2048, .sms = 132};
//   Occupancy o = *TheoreticalOccupancy({.registers = 168, .shared_bytes = 188636,
//                                        .block_threads = 384, .grid_blocks = 132}, h200);
//   o.fraction == 0.1875; o.limiter == "registers"

#include <cstdint>
#include <optional>
#include <string>

#include "workers/protocol.h"  // SmLimits

namespace adaexplore {

struct LaunchShape {
  int64_t registers = 0;     // Per thread.
  int64_t shared_bytes = 0;  // Per block, static and dynamic.
  int64_t block_threads = 0;
  int64_t grid_blocks = 0;
};

struct Occupancy {
  double fraction = 0;  // Resident warps per SM over the most an SM holds.
  // What allows no more: "registers", "shared_memory", "block_size" (threads or blocks per SM),
  // or "grid" (too few blocks to fill every SM).
  std::string limiter;
};

// Unset when the limits are unknown or the launch shape is incomplete.
std::optional<Occupancy> TheoreticalOccupancy(const LaunchShape& launch, const SmLimits& sm);

}  // namespace adaexplore
