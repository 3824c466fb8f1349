#include "eval/kernel_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace adaexplore {
namespace {

// The duration-weighted mean of `figure` over `kernels` that have it.
std::optional<double> Weighted(const std::vector<const ProfiledKernel*>& kernels,
                               std::optional<double> ProfiledKernel::*figure) {
  double sum = 0;
  double weight = 0;
  for (const ProfiledKernel* k : kernels) {
    if (k->*figure && std::isfinite(*(k->*figure))) {
      sum += *(k->*figure) * k->duration_us;
      weight += k->duration_us;
    }
  }
  return weight > 0 ? std::optional<double>(sum / weight) : std::nullopt;
}

std::string Percent(double fraction) { return fmt::format("{:.0f}%", 100 * fraction); }

std::string LimiterWords(const std::string& limiter) {
  if (limiter == "shared_memory") {
    return "shared memory";
  }
  if (limiter == "block_size") {
    return "the block size";
  }
  if (limiter == "grid") {
    return "the grid (too few blocks to fill every SM)";
  }
  return limiter;
}

// "; occupancy 25%, limited by registers" (the achieved one), "; theoretical occupancy 25%, ..."
// (the launch's resources only), or "" without a figure.
std::string OccupancyWords(const ProfileSummary& s) {
  const std::optional<double> occupancy =
      s.achieved_occupancy ? s.achieved_occupancy : s.theoretical_occupancy;
  if (!occupancy) {
    return "";
  }
  return fmt::format(
      "; {}occupancy {}{}", s.achieved_occupancy ? "" : "theoretical ", Percent(*occupancy),
      s.occupancy_limiter.empty() ? "" : ", limited by " + LimiterWords(s.occupancy_limiter));
}

std::string Text(const ProfileSummary& s) {
  const auto fraction = [](std::optional<double> f) { return f ? Percent(*f) : "?"; };
  switch (s.bottleneck) {
    case Bottleneck::kLaunch:
      return fmt::format(
          "launch-bound: the GPU is busy {} of the call; the rest is the host launching work "
          "(fewer, larger kernels or fusion help most)",
          fraction(s.device_share));
    case Bottleneck::kPytorch:
      return fmt::format(
          "PyTorch-dominated: {} of the kernel time is PyTorch's own kernels, not this "
          "kernel's",
          Percent(s.pytorch_share));
    case Bottleneck::kMemory:
      return fmt::format("memory-bound at {} of DRAM peak (SM {}){}", fraction(s.dram_fraction),
                         fraction(s.sm_fraction), OccupancyWords(s));
    case Bottleneck::kCompute:
      return fmt::format("compute-bound at {} of SM peak (DRAM {}){}", fraction(s.sm_fraction),
                         fraction(s.dram_fraction), OccupancyWords(s));
    case Bottleneck::kLatency:
      break;
  }
  return fmt::format(
      "latency-bound: neither memory ({} of DRAM peak) nor compute ({} of SM peak) is busy{}",
      fraction(s.dram_fraction), fraction(s.sm_fraction), OccupancyWords(s));
}

}  // namespace

std::optional<ProfileSummary> SummariseProfile(const ProfileFacts& call) {
  double total_us = 0;
  double pytorch_us = 0;
  std::vector<const ProfiledKernel*> own;
  std::vector<const ProfiledKernel*> all;
  for (const ProfiledKernel& k : call.kernels) {
    if (!(k.duration_us > 0) || !std::isfinite(k.duration_us)) {
      continue;
    }
    total_us += k.duration_us;
    all.push_back(&k);
    if (k.own) {
      own.push_back(&k);
    } else {
      pytorch_us += k.duration_us;
    }
  }
  if (total_us <= 0) {
    return std::nullopt;
  }
  const std::vector<const ProfiledKernel*>& judged = own.empty() ? all : own;
  ProfileSummary s;
  s.pytorch_share = pytorch_us / total_us;
  s.dram_fraction = Weighted(judged, &ProfiledKernel::dram_fraction);
  s.sm_fraction = Weighted(judged, &ProfiledKernel::sm_fraction);
  s.achieved_occupancy = Weighted(judged, &ProfiledKernel::achieved_occupancy);
  s.theoretical_occupancy = Weighted(judged, &ProfiledKernel::theoretical_occupancy);
  const ProfiledKernel* longest = *std::max_element(
      judged.begin(), judged.end(), [](const ProfiledKernel* a, const ProfiledKernel* b) {
        return a->duration_us < b->duration_us;
      });
  s.occupancy_limiter = longest->occupancy_limiter;
  if (call.call_us && *call.call_us > 0) {
    s.device_share = std::min(1.0, total_us / *call.call_us);
  }
  // The rule, first match wins (docs/profiling.md).
  const double dram = s.dram_fraction.value_or(0);
  const double sm = s.sm_fraction.value_or(0);
  if (s.device_share && *s.device_share < kDeviceShareMin) {
    s.bottleneck = Bottleneck::kLaunch;
  } else if (s.pytorch_share > kPytorchShareMax) {
    s.bottleneck = Bottleneck::kPytorch;
  } else if (std::max(dram, sm) >= kBusyUnit) {
    s.bottleneck = dram >= sm ? Bottleneck::kMemory : Bottleneck::kCompute;
  } else {
    s.bottleneck = Bottleneck::kLatency;
  }
  s.text = Text(s);
  return s;
}

std::string SolWords(std::optional<double> sol_fraction) {
  return sol_fraction ? fmt::format(" at {} of the speed of light", Percent(*sol_fraction)) : "";
}

}  // namespace adaexplore
