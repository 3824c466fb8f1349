// A correct candidate's distance from the speed of light and its hardware profile's bottleneck
// (docs/profiling.md): figures that say why a kernel is slow, never what its verdict is.

#include "eval/classify_internal.h"
#include "eval/kernel_profile.h"

namespace adaexplore::classify_internal {

void ClassifyProfile(const Facts& facts, EvalResult& r) {
  if (r.speed_of_light_ms && r.timing_meaningful) {
    const double kernel_ms = r.candidate_kernel_us
                                 ? *r.candidate_kernel_us / 1e3
                                 : (r.candidate_timing ? r.candidate_timing->median_ms : 0.0);
    if (kernel_ms > 0) {
      r.sol_fraction = *r.speed_of_light_ms / kernel_ms;
    }
  }
  if (!r.timing_meaningful) {
    r.profile_unavailable = "no GPU: kernels ran in Triton's interpreter, which has no profiler";
    return;
  }
  if (!facts.profile) {
    r.profile_unavailable = "not profiled: a search profiles each task's new best";
    return;
  }
  if (!facts.profile->unavailable.empty()) {
    r.profile_unavailable = facts.profile->unavailable;
    return;
  }
  const std::optional<ProfileSummary> summary = SummariseProfile(*facts.profile);
  if (!summary) {
    r.profile_unavailable = "the profiled call ran no kernel";
    return;
  }
  r.bottleneck = std::string(EnumName(summary->bottleneck));
  r.profile_text = summary->text;
}

}  // namespace adaexplore::classify_internal
