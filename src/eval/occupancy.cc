#include "eval/occupancy.h"

#include <algorithm>

namespace adaexplore {
namespace {

constexpr int64_t kWarpThreads = 32;
constexpr int64_t kRegisterUnit = 256;          // Registers are allocated per warp in these.
constexpr int64_t kSharedReservedBytes = 1024;  // Per block, for the system (sm_80 onwards).

int64_t CeilTo(int64_t x, int64_t unit) { return (x + unit - 1) / unit * unit; }

}  // namespace

std::optional<Occupancy> TheoreticalOccupancy(const LaunchShape& launch, const SmLimits& sm) {
  if (!sm.known() || launch.block_threads <= 0 || launch.grid_blocks <= 0 || launch.registers < 0 ||
      launch.shared_bytes < 0) {
    return std::nullopt;
  }
  const int64_t warps = (launch.block_threads + kWarpThreads - 1) / kWarpThreads;
  const int64_t max_warps = sm.threads / kWarpThreads;
  // Blocks per SM each resource allows, in the order a tie is named.
  const int64_t by_threads = std::min(max_warps / warps, sm.blocks);
  const int64_t warp_registers = CeilTo(launch.registers * kWarpThreads, kRegisterUnit);
  const int64_t by_registers =
      warp_registers > 0 ? sm.registers / (warp_registers * warps) : by_threads;
  const int64_t by_shared = launch.shared_bytes > 0
                                ? sm.shared_bytes / (launch.shared_bytes + kSharedReservedBytes)
                                : by_threads;
  Occupancy o;
  int64_t blocks = by_threads;
  o.limiter = "block_size";
  if (by_registers < blocks || (by_registers == blocks && by_registers < by_threads)) {
    blocks = by_registers;
    o.limiter = "registers";
  }
  if (by_shared < blocks) {
    blocks = by_shared;
    o.limiter = "shared_memory";
  }
  // A grid of fewer blocks than the SMs could hold leaves warps unfilled, whatever the resources.
  const double per_sm = static_cast<double>(launch.grid_blocks) / static_cast<double>(sm.sms);
  double resident = static_cast<double>(blocks);
  if (per_sm < resident) {
    resident = per_sm;
    o.limiter = "grid";
  }
  o.fraction = resident * static_cast<double>(warps) / static_cast<double>(max_warps);
  if (o.fraction >= 1) {
    o.limiter.clear();  // Nothing holds it back.
  }
  return o;
}

}  // namespace adaexplore
