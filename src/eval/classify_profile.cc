// A correct candidate's distance from the speed of light and its hardware profile's bottleneck
// (docs/profiling.md): figures that say why a kernel is slow, never what its verdict is.

#include "eval/classify_internal.h"
#include "eval/kernel_profile.h"

namespace adaexplore::classify_internal {
namespace {

constexpr std::string_view kEstimated =
    " (estimated from the task's bytes and matrix flops over the traced kernel time; no hardware "
    "counters)";

// Without a hardware profile, the same rule over what the kernel trace and the task's roofline
// say (docs/profiling.md): the candidate's and PyTorch's kernel time from the trace, the call's
// from its timing, as the memory side's busy fraction the task's bytes at the copy bandwidth (the
// speed-of-light fraction: a lower bound of the traffic) and as the compute side's the
// reference's matrix flops at the bf16 rate. No occupancy: the trace has no counters.
std::optional<ProfileFacts> TraceProfile(const Facts& facts, const DeviceCeilings* ceilings,
                                         const EvalResult& r) {
  if (!facts.kernel_trace || !r.candidate_timing || !r.candidate_kernel_us) {
    return std::nullopt;
  }
  const KernelTrace& trace = *facts.kernel_trace;
  const double kernel_s = *r.candidate_kernel_us / 1e6;
  ProfiledKernel own{.name = "own",
                     .duration_us = trace.own_us.value_or(0),
                     .dram_fraction = r.sol_fraction,
                     .own = true};
  if (ceilings != nullptr && ceilings->bf16_flops_per_s > 0 && facts.roofline.flops &&
      kernel_s > 0) {
    own.sm_fraction = *facts.roofline.flops / kernel_s / ceilings->bf16_flops_per_s;
  }
  return ProfileFacts{.tool = "trace",
                      .kernels = {own, ProfiledKernel{.name = "pytorch",
                                                      .duration_us = trace.pytorch_us.value_or(0),
                                                      .own = false}},
                      .call_us = r.candidate_timing->median_ms * 1e3};
}

}  // namespace

void ClassifyProfile(const Facts& facts, const DeviceCeilings* ceilings, EvalResult& r) {
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
  if (facts.profile && !facts.profile->unavailable.empty()) {
    r.profile_unavailable = facts.profile->unavailable;
    return;
  }
  const std::optional<ProfileFacts> call =
      facts.profile ? facts.profile : TraceProfile(facts, ceilings, r);
  if (!call) {
    r.profile_unavailable = "not profiled: a search profiles each task's new best";
    return;
  }
  const std::optional<ProfileSummary> summary = SummariseProfile(*call);
  if (!summary) {
    r.profile_unavailable = "the profiled call ran no kernel";
    return;
  }
  if (call->tool == "trace" && summary->bottleneck == Bottleneck::kLatency &&
      facts.roofline.flops.value_or(0) > 0) {
    // Matrix work judged against the bf16 rate only: an fp32 kernel near its own peak would read
    // latency-bound here (an fp32 GEMM on the H200 did). Better no line than a wrong one.
    r.profile_unavailable =
        "not profiled; the kernel trace's estimate cannot tell latency from compute on matrix "
        "work without the kernel's own peak";
    return;
  }
  r.bottleneck = std::string(EnumName(summary->bottleneck));
  r.profile_text = summary->text + (call->tool == "trace" ? std::string(kEstimated) : "");
}

}  // namespace adaexplore::classify_internal
