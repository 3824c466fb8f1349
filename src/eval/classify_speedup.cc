// The figures of a correct candidate: its timing against the reference's, the compiled
// reference's and the task's expert kernel's, and the speed-of-light bound no honest time can
// beat (the one rule that runs after the timing).

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "eval/classify_internal.h"

namespace adaexplore::classify_internal {

namespace {

// Clock event reasons that slow the GPU down (clocks.py names them).
bool Slows(const std::string& reason) {
  return reason == "sw_power_cap" || reason == "hw_slowdown" || reason == "sw_thermal" ||
         reason == "hw_thermal" || reason == "hw_power_brake";
}

// The GPU's clocks before the first timed run and after the last (facts.timing.gpu_state): a
// timing during which they moved by more than 5%, or the GPU slowed itself down, is marked with
// a finding.
void ClassifyClocks(const Timing& timing, EvalResult& r) {
  if (!timing.gpu_state || !timing.gpu_state->before || !timing.gpu_state->after) {
    return;
  }
  const GpuReading& before = *timing.gpu_state->before;
  const GpuReading& after = *timing.gpu_state->after;
  constexpr double kShift = 0.05;
  std::vector<std::string> moved;
  const auto compare = [&](const char* name, const std::optional<double>& b,
                           const std::optional<double>& a) {
    if (b && a && std::abs(*a - *b) > kShift * std::max(*a, *b)) {
      moved.push_back(fmt::format("{} clock {:g} -> {:g} MHz", name, *b, *a));
    }
  };
  compare("SM", before.sm_mhz, after.sm_mhz);
  compare("memory", before.mem_mhz, after.mem_mhz);
  std::set<std::string> reasons;
  for (const GpuReading* reading : {&before, &after}) {
    for (const std::string& reason : reading->throttle.value_or(std::vector<std::string>{})) {
      if (Slows(reason)) {
        reasons.insert(reason);
      }
    }
  }
  if (!reasons.empty()) {
    moved.push_back(fmt::format("slowed by {}", fmt::join(reasons, ", ")));
  }
  if (!moved.empty()) {
    r.findings.push_back(fmt::format("clocks moved during timing ({}): the figure may not repeat",
                                     fmt::join(moved, "; ")));
  }
}

// Runs whose host outlasted the head start (head_start.py; warm-ups and both sides counted): the
// GPU may have waited for the host inside their window. Those kept make the call time partly the
// host's; said in a finding, as are those the growing head start left out.
void ClassifyHostLate(const Timing& timing, EvalResult& r) {
  const int64_t kept = timing.host_late_runs - timing.host_late_dropped;
  const double head_us = timing.head_start_us.value_or(0);
  if (kept > 0) {
    r.findings.push_back(fmt::format(
        "in {} runs (warm-ups and both sides counted) the host was still launching the call when "
        "the GPU's head start of {:.0f} us ended: their times include the host's (a host-bound "
        "call, or a host slowed by other work)",
        kept, head_us));
  }
  if (timing.host_late_dropped > 0) {
    r.findings.push_back(fmt::format(
        "{} late runs were not kept (nor the other side's run beside each): the host outlasted "
        "the head start, which grew to {:.0f} us",
        timing.host_late_dropped, head_us));
  }
}

// A timing whose speedup is not known to the profile's settle_limit: its uncertainty is the
// candidate's and the reference's median half-widths, summed (a ratio's relative error is at
// most about the sum of its terms'). In the call scope it gives no number; in the GPU scope,
// whose spread is the kernel's own (clocks, contention), the number stands with its +- and a
// finding: no honest kernel is left without one.
void ClassifySettled(const TimingStats& candidate, const TimingStats& reference,
                     const EvalProfile& p, EvalResult& r) {
  if (p.settle_limit <= 0 || !r.timing_meaningful || !r.speedup ||
      p.speedup_scope == TimingScope::kKernel) {
    return;
  }
  const double uncertainty = candidate.median_halfwidth + reference.median_halfwidth;
  if (uncertainty <= p.settle_limit) {
    return;
  }
  if (p.speedup_scope == TimingScope::kGpu) {
    r.findings.push_back(fmt::format(
        "GPU time did not settle: after {} runs the candidate's median GPU time is known to "
        "+-{:.1f}% and the reference's to +-{:.1f}%, over the {:.1f}% of --settle-limit: the "
        "speedup {:.3g}x is known to about +-{:.1f}%",
        candidate.runs, 100 * candidate.median_halfwidth, 100 * reference.median_halfwidth,
        100 * p.settle_limit, *r.speedup, 100 * uncertainty));
    return;
  }
  r.timing_unsettled = true;
  r.findings.push_back(fmt::format(
      "timing did not settle: after {} runs the candidate's median is known to +-{:.1f}% and the "
      "reference's to +-{:.1f}%, over the {:.1f}% a speedup needs (--settle-limit): no speedup "
      "is given ({:.3g}x as measured)",
      candidate.runs, 100 * candidate.median_halfwidth, 100 * reference.median_halfwidth,
      100 * p.settle_limit, *r.speedup));
  r.speedup.reset();
  r.speedup_compiled.reset();
}

// A call whose host time per run (from entering it to its return) is well over its GPU time: the
// GPU figure is the kernel's, the call's own time is the host's (said, not judged: host work a
// kernel moved off the GPU sits between its GPU work, inside the span).
void ClassifyHostBound(const Timing& timing, const TimingStats& gpu, EvalResult& r) {
  constexpr double kHostShare = 2;
  constexpr double kHostFloorMs = 0.02;
  const TimingStats wall = ComputeTimingStats(Samples(timing.candidate_host_ms));
  if (wall.runs == 0 || gpu.runs == 0 || wall.median_ms <= kHostShare * gpu.median_ms ||
      wall.median_ms - gpu.median_ms <= kHostFloorMs) {
    return;
  }
  r.findings.push_back(fmt::format(
      "host-bound: {:.4g} us of host per call against {:.4g} us of GPU (medians): the speedup "
      "compares GPU time; the call's own time is mostly the host's{}",
      1e3 * wall.median_ms, 1e3 * gpu.median_ms,
      r.speedup_call ? fmt::format(" ({:.3g}x in call time)", *r.speedup_call) : ""));
}

// The ratio of two series' `statistic`, when both have runs.
std::optional<double> Ratio(const TimingStats& over, const TimingStats& under,
                            Statistic statistic) {
  const double u = under.Of(statistic);
  if (over.runs == 0 || under.runs == 0 || u <= 0) {
    return std::nullopt;
  }
  return over.Of(statistic) / u;
}

}  // namespace

namespace {

using GpuSeriesMs = std::vector<std::optional<double>>;

// Why two sides' GPU series (whole calls', or the operator's: `what`, the work they time) give
// no figure: a side without runs, or runs that launched no such work.
std::optional<std::string> RunsWithoutWork(const GpuSeriesMs& candidate,
                                           const GpuSeriesMs& reference, std::string_view what) {
  if (candidate.empty() || reference.empty()) {
    return fmt::format("the GPU timeline has no timed runs of both sides with {}", what);
  }
  for (const auto& [series, side] :
       {std::pair{&candidate, "candidate"}, std::pair{&reference, "reference"}}) {
    const auto empty =
        std::ranges::count_if(*series, [](const std::optional<double>& ms) { return !ms; });
    if (empty > 0) {
      return fmt::format("{} of the {}'s {} timed runs launched no {}", empty, side, series->size(),
                         what);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> GpuScopeBroken(const Timing& timing) {
  if (timing.gpu_timeline_lost) {
    return fmt::format("no GPU timeline ({})", *timing.gpu_timeline_lost);
  }
  return RunsWithoutWork(timing.candidate_gpu_ms, timing.reference_gpu_ms,
                         "GPU work inside the call");
}

void ClassifyTiming(const Timing& timing, const EvalProfile& p, EvalResult& r) {
  ClassifyClocks(timing, r);
  if (timing.meaningful && p.speedup_scope == TimingScope::kCall) {
    ClassifyHostLate(timing, r);  // Of the timed runs: nothing to a kernel-time speedup.
  }
  r.statistic = p.statistic;
  r.timing_meaningful = timing.meaningful;
  const TimingStats candidate = ComputeTimingStats(Samples(timing.candidate_ms));
  const TimingStats reference = ComputeTimingStats(Samples(timing.reference_ms));
  if (candidate.runs > 0) {
    r.candidate_timing = candidate;
  }
  if (reference.runs > 0) {
    r.reference_timing = reference;
  }
  const TimingStats compiled = ComputeTimingStats(Samples(timing.compiled_reference_ms));
  if (compiled.runs > 0) {
    r.compiled_reference_timing = compiled;
  }
  const TimingStats candidate_gpu = ComputeTimingStats(Samples(timing.candidate_gpu_ms));
  const TimingStats reference_gpu = ComputeTimingStats(Samples(timing.reference_gpu_ms));
  if (candidate_gpu.runs > 0) {
    r.candidate_gpu_timing = candidate_gpu;
  }
  if (reference_gpu.runs > 0) {
    r.reference_gpu_timing = reference_gpu;
  }
  if (p.speedup_scope != TimingScope::kGpu) {
    r.speedup = Ratio(reference, candidate, p.statistic);
    r.speedup_compiled = Ratio(compiled, candidate, p.statistic);
    ClassifySettled(candidate, reference, p, r);
    return;
  }
  r.speedup = Ratio(reference_gpu, candidate_gpu, p.statistic);
  r.speedup_call = Ratio(reference, candidate, p.statistic);
  r.speedup_compiled = Ratio(ComputeTimingStats(Samples(timing.compiled_reference_gpu_ms)),
                             candidate_gpu, p.statistic);
  ClassifyHostBound(timing, candidate_gpu, r);
  ClassifySettled(candidate_gpu, reference_gpu, p, r);
}

// The task's expert kernel (facts.expert: its name and whether it agreed with the reference,
// timing.expert_ms): a speedup over it only when it computes what the reference does.
void ClassifyExpert(const Facts& facts, const Timing& timing, const EvalProfile& p, EvalResult& r) {
  const Expert& expert = facts.expert;
  const TimingStats stats = ComputeTimingStats(Samples(timing.expert_ms));
  if (!expert.name || stats.runs == 0) {
    return;
  }
  const bool gpu = p.speedup_scope == TimingScope::kGpu;
  r.expert = *expert.name;
  r.expert_timing = stats;
  if (!expert.agrees) {
    r.findings.push_back(fmt::format(
        "expert baseline {} does not match the reference within the profile's tolerance "
        "(relative error {:.3g}): no speedup over it is given",
        r.expert, expert.relative_error.value_or(0.0)));
    return;
  }
  if (gpu) {  // Compared in the same scope as the reference: the GPU's times.
    if (r.candidate_gpu_timing) {
      r.speedup_expert = Ratio(ComputeTimingStats(Samples(timing.expert_gpu_ms)),
                               *r.candidate_gpu_timing, p.statistic);
    }
    return;
  }
  const double c = r.candidate_timing ? r.candidate_timing->Of(p.statistic) : 0;
  if (c > 0 && !r.timing_unsettled) {
    r.speedup_expert = stats.Of(p.statistic) / c;
  }
}

namespace {

// One side's kernel time in its traced call: the operator's (the work outside the test's setup
// ranges) where `operator_scope`, else the whole call's.
std::optional<double> KernelTimeOf(const std::optional<KernelTrace>& trace, bool operator_scope) {
  if (!trace) {
    return std::nullopt;
  }
  const std::optional<double> us = operator_scope ? trace->operator_us : trace->busy_us;
  return us && *us > 0 ? us : std::nullopt;
}

// Why one side's setup ranges do not stand, or nullopt.
std::optional<std::string> RangesBroken(const KernelTrace& trace, std::string_view side) {
  if (!trace.operator_us || !trace.setup_ranges) {
    return fmt::format("the {}'s trace has no setup ranges", side);
  }
  const SetupRanges& ranges = *trace.setup_ranges;
  if (!ranges.intact) {
    return fmt::format("torch.Tensor's attributes changed during the {}'s traced call", side);
  }
  if (ranges.opened != ranges.traced) {
    return fmt::format("the {}'s trace holds {} setup ranges where the harness opened {}", side,
                       ranges.traced, ranges.opened);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> OperatorScopeBroken(const Facts& facts) {
  if (!facts.kernel_trace || !facts.reference_trace) {
    return "a side was not traced";
  }
  for (const auto& [trace, side] : {std::pair{&*facts.kernel_trace, "candidate"},
                                    std::pair{&*facts.reference_trace, "reference"}}) {
    if (std::optional<std::string> why = RangesBroken(*trace, side)) {
      return why;
    }
  }
  if (facts.kernel_trace->setup_kernels != facts.reference_trace->setup_kernels) {
    return "the candidate's setup launched other kernels than the reference's, from the same "
           "test and seed";
  }
  return std::nullopt;
}

bool OperatorScopeHolds(const Facts& facts) { return !OperatorScopeBroken(facts).has_value(); }

std::optional<std::string> OperatorGpuBroken(const Timing& timing) {
  if (!timing.gpu_setup) {
    return "the timed runs noted no setup calls of the test";
  }
  const GpuSetup& setup = *timing.gpu_setup;
  if (std::optional<std::string> why =
          RunsWithoutWork(timing.candidate_operator_gpu_ms, timing.reference_operator_gpu_ms,
                          "GPU work of the operator's")) {
    return why;
  }
  if (!setup.intact) {
    return "torch's callables changed during the timed runs";
  }
  // The same test and inputs on both sides: the same setup kernels in each run, so the counts
  // over the kept runs are in the ratio of the runs.
  const auto candidate_runs = static_cast<int64_t>(timing.candidate_operator_gpu_ms.size());
  const auto reference_runs = static_cast<int64_t>(timing.reference_operator_gpu_ms.size());
  std::set<std::string> names;
  for (const auto* kernels : {&setup.candidate_kernels, &setup.reference_kernels}) {
    for (const auto& [name, launches] : *kernels) {
      names.insert(name);
    }
  }
  for (const std::string& name : names) {
    const auto count = [&](const std::map<std::string, int64_t>& kernels) {
      const auto it = kernels.find(name);
      return it == kernels.end() ? int64_t{0} : it->second;
    };
    if (count(setup.candidate_kernels) * reference_runs !=
        count(setup.reference_kernels) * candidate_runs) {
      return fmt::format(
          "the candidate's setup calls launched {} other than the reference's in the timed runs "
          "(the same test and inputs): {} against {} launches in {} and {} runs",
          name.substr(0, 80), count(setup.candidate_kernels), count(setup.reference_kernels),
          candidate_runs, reference_runs);
    }
  }
  return std::nullopt;
}

bool CallMakesItsInputs(const Facts& facts) {
  return facts.kernel_trace && facts.kernel_trace->operator_us;
}

KernelKinds OperatorKinds(const Facts& facts) {
  if (!facts.kernel_trace) {
    return {};
  }
  const KernelTrace& trace = *facts.kernel_trace;
  KernelKinds k{.own = trace.own_us.value_or(0), .pytorch = trace.pytorch_us.value_or(0)};
  if (trace.setup_kernel_us && OperatorScopeHolds(facts)) {
    k.own = std::max(0.0, k.own - trace.setup_kernel_us->own);
    k.pytorch = std::max(0.0, k.pytorch - trace.setup_kernel_us->pytorch);
  }
  return k;
}

// The profile the timing is judged under: the profile itself, except that a task whose call
// makes its own inputs (a TritonBench-G test: its trace has the operator's kernel time), whose
// call's time is mostly the test's input creation, compares the operator's time: in the GPU
// scope its GPU time in each timed run where that stands (made each side's GPU series), else its
// kernel time in one traced call (the kernel scope).
EvalProfile TimedProfile(const Facts& facts, Timing& timing, const EvalProfile& profile,
                         EvalResult& r) {
  EvalProfile timed = profile;
  if (CallMakesItsInputs(facts) && profile.speedup_scope != TimingScope::kKernel) {
    if (profile.speedup_scope == TimingScope::kGpu && timing.meaningful) {
      std::optional<std::string> why = GpuScopeBroken(timing);
      if (!why) {
        why = OperatorGpuBroken(timing);
      }
      if (!why) {
        timing.candidate_gpu_ms = timing.candidate_operator_gpu_ms;
        timing.reference_gpu_ms = timing.reference_operator_gpu_ms;
        timing.candidate_host_ms.clear();  // The host's time in the call is mostly the test's.
        r.findings.push_back(
            "the task's call makes its own inputs (a TritonBench-G test): the speedup compares "
            "the operator's GPU time in each timed run, without the test's setup calls (the "
            "whole calls' timed runs stay in candidate_timing and reference_timing)");
        return timed;
      }
      r.findings.push_back(fmt::format(
          "{}: the operator's GPU time in the timed runs does not stand, so its kernel time in "
          "one traced call is compared",
          *why));
    }
    timed.speedup_scope = TimingScope::kKernel;
    r.findings.push_back(
        "the task's call makes its own inputs (a TritonBench-G test): the speedup compares the "
        "operator's kernel time, without the test's setup calls (the call's timed runs stay in "
        "candidate_timing and reference_timing)");
    return timed;
  }
  if (profile.speedup_scope != TimingScope::kGpu) {
    return timed;
  }
  if (!timing.meaningful) {
    timed.speedup_scope = TimingScope::kCall;  // A CPU's clock: no GPU, no timeline.
    return timed;
  }
  if (std::optional<std::string> why = GpuScopeBroken(timing)) {
    timed.speedup_scope = TimingScope::kCall;
    r.findings.push_back(fmt::format(
        "{}: the speedup compares the call's timed runs (the call scope), not GPU time", *why));
  }
  return timed;
}

// The kernel scope (verdict.h): each side's kernel time in its traced call, and their ratio;
// the speedup itself when the profile compares kernels, none without a trace of both.
void ClassifyKernelScope(const Facts& facts, const EvalProfile& p, EvalResult& r) {
  r.scope = p.speedup_scope;
  const bool marked = CallMakesItsInputs(facts);
  const std::optional<std::string> broken = marked ? OperatorScopeBroken(facts) : std::nullopt;
  if (broken) {
    r.findings.push_back(fmt::format(
        "{}: the operator's kernel time does not stand, so both sides' whole calls are compared",
        *broken));
  }
  r.candidate_kernel_us = KernelTimeOf(facts.kernel_trace, marked && !broken);
  r.reference_kernel_us = KernelTimeOf(facts.reference_trace, marked && !broken);
  if (r.candidate_kernel_us && r.reference_kernel_us) {
    r.speedup_kernel = *r.reference_kernel_us / *r.candidate_kernel_us;
  }
  if (p.speedup_scope != TimingScope::kKernel) {
    return;
  }
  r.speedup = r.speedup_kernel;
  r.speedup_compiled.reset();  // Timed runs only: no kernel time of them.
  r.speedup_expert.reset();
  if (!r.speedup_kernel && r.candidate_timing) {
    r.findings.push_back(
        "no kernel time for both sides (the kernel trace runs on a GPU only): no speedup in the "
        "kernel scope");
  }
}

// The speed-of-light bound in milliseconds, if the facts and ceilings allow one: the time to
// read the forward inputs once and write the outputs once at the measured copy bandwidth. The
// reference's flops and parameter bytes are no bound: on the H200, real kernels of the reference
// run (KernelBench L2 18 and 42) beat them legitimately, by algebra (a GEMM whose output is summed
// needs only a GEMV) and by reducing parameters once at construction.
std::optional<double> SpeedOfLightMs(const Facts& facts, const DeviceCeilings* ceilings) {
  if (ceilings == nullptr || !ceilings->known()) {
    return std::nullopt;
  }
  const double seconds = facts.roofline.io_bytes.value_or(0.0) / ceilings->copy_bytes_per_s;
  return seconds > 0 ? std::optional<double>(seconds * 1e3) : std::nullopt;
}

// Rejects a measured time below the bound. The slack absorbs timer resolution, ceilings measured
// on a busy card, and read-only streams running faster than a copy (the H200's HBM peak is about
// 1.2x its measured copy rate); anything beyond it is physically impossible, not fast.
bool ClassifySpeedOfLight(const EvalProfile& profile, EvalResult& r) {
  constexpr double kSlack = 0.75;
  if (!Applies(profile, "speed_of_light") || !r.speed_of_light_ms || !r.candidate_timing ||
      !r.timing_meaningful) {
    return false;
  }
  const TimingStats& compared = r.scope == TimingScope::kGpu && r.candidate_gpu_timing
                                    ? *r.candidate_gpu_timing
                                    : *r.candidate_timing;
  const double measured = compared.Of(r.statistic.value_or(Statistic::kMedian));
  if (measured >= kSlack * *r.speed_of_light_ms) {
    return false;
  }
  Reject(r, "speed_of_light",
         fmt::format("faster than the speed of light: {:.4g} ms, but reading the inputs once and "
                     "writing the outputs once at this GPU's measured bandwidth takes at least "
                     "{:.4g} ms; pending review",
                     measured, *r.speed_of_light_ms));
  r.speedup.reset();
  r.speedup_compiled.reset();
  r.speedup_expert.reset();
  return true;
}

}  // namespace adaexplore::classify_internal
