// A correct candidate's distance from the speed of light and its hardware profile's bottleneck
// (docs/profiling.md): figures that say why a kernel is slow, never what its verdict is.

#include <algorithm>
#include <initializer_list>
#include <string_view>

#include "eval/classify_internal.h"
#include "eval/kernel_profile.h"
#include "eval/occupancy.h"

namespace adaexplore::classify_internal {
namespace {

constexpr std::string_view kEstimated =
    " (estimated from the task's bytes and matrix flops over the traced kernel time, occupancy "
    "from the kernels' registers, shared memory and launch shape; no hardware counters)";

// The matrix rate the candidate's kernels can reach: fp32's without TF32 for a float32 task whose
// profile forbids TF32 (where the worker measured it), else bf16's, the fastest there is.
// `their_own`: that rate is the kernels' own peak, not only an upper bound of it (a float32 task
// with TF32 allowed may run at TF32's rate, about half bf16's, or at fp32's).
struct MatrixPeak {
  double flops_per_s = 0;
  bool their_own = false;
};

MatrixPeak PeakFor(const Facts& facts, const EvalProfile& profile, const DeviceCeilings& ceilings) {
  const auto has = [&](std::initializer_list<std::string_view> dtypes) {
    return std::ranges::any_of(facts.reference.outputs, [&](const ReferenceOutput& o) {
      return std::ranges::find(dtypes, o.dtype) != dtypes.end();
    });
  };
  const bool single = has({"float32", "float64"});
  if (!single && has({"float16", "bfloat16"})) {
    return {.flops_per_s = ceilings.bf16_flops_per_s, .their_own = true};
  }
  if (single && !profile.job.allow_tf32 && ceilings.fp32_flops_per_s > 0) {
    return {.flops_per_s = ceilings.fp32_flops_per_s, .their_own = true};
  }
  return {.flops_per_s = ceilings.bf16_flops_per_s, .their_own = false};
}

// The theoretical occupancy of the call's own kernels (all of them when it has none), weighted
// by their time, and the limiter of the longest (eval/occupancy.h), into `call`.
void TraceOccupancy(const KernelTrace& trace, const SmLimits& sm, ProfiledKernel& call) {
  const bool has_own = std::ranges::any_of(
      trace.kernels, [](const TracedKernel& k) { return k.kind == "own" && k.us > 0; });
  double weighted = 0;
  double weight = 0;
  double longest = -1;
  for (const TracedKernel& k : trace.kernels) {
    if ((has_own && k.kind != "own") || !(k.us > 0) || !k.registers || !k.shared_bytes ||
        !k.block_threads || !k.grid_blocks) {
      continue;
    }
    const std::optional<Occupancy> o = TheoreticalOccupancy({.registers = *k.registers,
                                                             .shared_bytes = *k.shared_bytes,
                                                             .block_threads = *k.block_threads,
                                                             .grid_blocks = *k.grid_blocks},
                                                            sm);
    if (!o) {
      continue;
    }
    weighted += o->fraction * k.us;
    weight += k.us;
    if (k.us > longest) {
      longest = k.us;
      call.occupancy_limiter = o->limiter;
    }
  }
  if (weight > 0) {
    call.theoretical_occupancy = weighted / weight;
  }
}

// Without a hardware profile, the same rule over what the kernel trace and the task's roofline
// say (docs/profiling.md): the candidate's and PyTorch's kernel time from the trace, the call's
// from its timing, as the memory side's busy fraction the task's bytes at the copy bandwidth (the
// speed-of-light fraction: a lower bound of the traffic), as the compute side's the reference's
// matrix flops at the kernels' matrix peak (PeakFor), and as the occupancy the theoretical one
// of each kernel's launch.
struct TraceEstimate {
  ProfileFacts call;
  bool peak_their_own = false;
};

std::optional<TraceEstimate> TraceProfile(const Facts& facts, const EvalProfile& profile,
                                          const DeviceCeilings* ceilings, const EvalResult& r) {
  if (!facts.kernel_trace || !r.candidate_timing || !r.candidate_kernel_us) {
    return std::nullopt;
  }
  const KernelTrace& trace = *facts.kernel_trace;
  const KernelKinds kinds = OperatorKinds(facts);
  const double kernel_s = *r.candidate_kernel_us / 1e6;
  ProfiledKernel own{
      .name = "own", .duration_us = kinds.own, .dram_fraction = r.sol_fraction, .own = true};
  MatrixPeak peak;
  if (ceilings != nullptr) {
    peak = PeakFor(facts, profile, *ceilings);
    if (peak.flops_per_s > 0 && facts.roofline.flops && kernel_s > 0) {
      own.sm_fraction = *facts.roofline.flops / kernel_s / peak.flops_per_s;
    }
    TraceOccupancy(trace, ceilings->sm, own);
  }
  return TraceEstimate{
      .call = {.tool = "trace",
               .kernels = {own,
                           ProfiledKernel{
                               .name = "pytorch", .duration_us = kinds.pytorch, .own = false}},
               // The timed call of a task that makes its own inputs is mostly that: no share.
               .call_us = CallMakesItsInputs(facts)
                              ? std::nullopt
                              : std::optional<double>(r.candidate_timing->median_ms * 1e3)},
      .peak_their_own = peak.their_own};
}

}  // namespace

void ClassifyProfile(const Facts& facts, const EvalProfile& profile, const DeviceCeilings* ceilings,
                     EvalResult& r) {
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
  const std::optional<TraceEstimate> estimate =
      facts.profile ? std::nullopt : TraceProfile(facts, profile, ceilings, r);
  const ProfileFacts* call = facts.profile ? &*facts.profile : estimate ? &estimate->call : nullptr;
  if (call == nullptr) {
    r.profile_unavailable = "not profiled: a search profiles each task's new best";
    return;
  }
  const std::optional<ProfileSummary> summary = SummariseProfile(*call);
  if (!summary) {
    r.profile_unavailable = "the profiled call ran no kernel";
    return;
  }
  if (estimate && !estimate->peak_their_own && summary->bottleneck == Bottleneck::kLatency &&
      facts.roofline.flops.value_or(0) > 0) {
    // Matrix work judged against a rate above the kernels' own: one near its own peak would read
    // latency-bound here (an fp32 GEMM on the H200 did against bf16's). Better no line than a
    // wrong one.
    r.profile_unavailable =
        "not profiled; the kernel trace's estimate cannot tell latency from compute on matrix "
        "work without the kernel's own peak";
    return;
  }
  r.bottleneck = std::string(EnumName(summary->bottleneck));
  r.profile_text = summary->text + (estimate ? std::string(kEstimated) : "");
}

}  // namespace adaexplore::classify_internal
