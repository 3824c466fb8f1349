#pragma once

// What a correct kernel's profile says to do next: the bottleneck of its call, by a documented
// rule over per-kernel hardware metrics (docs/profiling.md), and that in one line a model can act
// on: "memory-bound at 41% of DRAM peak; occupancy 25%, limited by registers".
//
//   const ProfileFacts& call = *facts.profile;  // The worker's profile fact (workers/facts.h).
//   ProfileSummary s = SummariseProfile(call);
//   s.bottleneck == Bottleneck::kMemory; s.text == "memory-bound at 82% of DRAM peak; ..."

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/enum_names.h"
#include "workers/facts.h"

namespace adaexplore {

enum class Bottleneck { kMemory, kCompute, kLatency, kLaunch, kPytorch };

template <>
struct EnumTraits<Bottleneck> {
  static constexpr std::array<std::pair<Bottleneck, std::string_view>, 5> kNames = {{
      {Bottleneck::kMemory, "memory_bound"},
      {Bottleneck::kCompute, "compute_bound"},
      {Bottleneck::kLatency, "latency_bound"},
      {Bottleneck::kLaunch, "launch_bound"},
      {Bottleneck::kPytorch, "pytorch_dominated"},
  }};
};

// The rule's thresholds (docs/profiling.md).
inline constexpr double kBusyUnit = 0.6;        // A unit at this share of its peak bounds the call.
inline constexpr double kDeviceShareMin = 0.5;  // Below it, the host's gaps dominate the call.
inline constexpr double kPytorchShareMax = 0.5;  // Above it, PyTorch's kernels do the work.

struct ProfileSummary {
  Bottleneck bottleneck = Bottleneck::kLatency;
  // Duration-weighted over the call's own kernels (all kernels when it has none of its own).
  std::optional<double> dram_fraction;
  std::optional<double> sm_fraction;
  std::optional<double> achieved_occupancy;
  std::optional<double> theoretical_occupancy;  // Said only without an achieved one.
  std::string occupancy_limiter;                // Of the longest own kernel.
  double pytorch_share = 0;                     // Of the kernels' time.
  std::optional<double> device_share;  // Kernels' time over the call's, when the call's is known.
  std::string text;                    // The one line for prompts and reports.
};

// The call's bottleneck and its line; nullopt for a call that ran no kernel.
std::optional<ProfileSummary> SummariseProfile(const ProfileFacts& call);

// " at 35% of the speed of light" for a fraction, or "" for none: what the text adds.
std::string SolWords(std::optional<double> sol_fraction);

}  // namespace adaexplore
