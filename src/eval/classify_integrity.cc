// The integrity checks that reject a candidate (eval/checks.h names each): source findings,
// replaced functions and threads left running, swallowed exceptions, changed precision flags,
// the kernel trace, revalidation of the timed runs, work escaping the timed stream, and calls
// without a launch of the candidate's own. Also the findings and degenerate tasks a result
// reports whatever its verdict. Rules of kVerdictRules (eval/classify.cc).

#include <fmt/format.h>

#include <algorithm>

#include "core/json_text.h"
#include "eval/checks.h"
#include "eval/classify_internal.h"

namespace adaexplore::classify_internal {
namespace {

// Whether the candidate's code ran at all: a forged result and a candidate that does not load
// are decided by their status, before anything the candidate did.
bool Ran(const Evidence& e) {
  const FactStatus status = e.facts.status;
  return status != FactStatus::kImportError && status != FactStatus::kTaskError &&
         status != FactStatus::kProtocolViolation;
}

// Rejects on the first of `findings` whose rule the profile rejects.
bool RejectFinding(const std::vector<Finding>& findings, bool from_source,
                   const EvalProfile& profile, EvalResult& r) {
  for (const Finding& finding : findings) {
    const IntegrityCheck* check = FindIntegrityCheck(finding.rule);
    if (check == nullptr || check->kind != CheckKind::kSourceRule ||
        !CheckApplies(*check, profile)) {
      continue;
    }
    Reject(
        r, finding.rule,
        from_source
            ? fmt::format("static check '{}' at line {}: `{}`: {}", finding.rule, finding.line,
                          finding.text, check->why)
            : fmt::format("runtime check '{}': {}{}: {}", finding.rule, finding.text,
                          finding.line > 0 ? fmt::format(" (candidate line {})", finding.line) : "",
                          check->why));
    return true;
  }
  return false;
}

}  // namespace

// Rejects on the first finding whose rule the profile rejects: `static` findings come from the
// source, `runtime_findings` from what the candidate's code did (audit hook, ancestry,
// torch.compile counters).
bool DecideFindings(const Evidence& e, EvalResult& r) {
  return Ran(e) &&
         (RejectFinding(e.facts.static_facts.findings, /*from_source=*/true, e.profile, r) ||
          RejectFinding(e.facts.runtime_findings, /*from_source=*/false, e.profile, r));
}

// Runtime integrity facts that reject whatever else happened: replaced functions and threads
// left running.
bool DecideRuntimeIntegrity(const Evidence& e, EvalResult& r) {
  if (!Ran(e)) {
    return false;
  }
  const Facts& facts = e.facts;
  if (Applies(e.profile, "patching") && !facts.patched.empty()) {
    Reject(r, "patching",
           "the candidate replaced " + JsonText(nlohmann::json(facts.patched)) +
               " (restored before checking): timers, synchronisation and the functions checks "
               "use must not be patched");
    return true;
  }
  if (Applies(e.profile, "dispatcher_override") && !facts.dispatcher_overrides.empty()) {
    Reject(r, "dispatcher_override",
           "the candidate registered " + JsonText(nlohmann::json(facts.dispatcher_overrides)) +
               " in torch's dispatcher: a kernel for an operator it did not define also runs for "
               "the reference's calls");
    return true;
  }
  const bool threads_checked = Applies(e.profile, "threads_left_running");
  if (threads_checked && !facts.threads_left_running.empty()) {
    Reject(r, "threads_left_running",
           "the candidate left Python thread(s) " +
               JsonText(nlohmann::json(facts.threads_left_running)) +
               " running after forward returned: work outside the timed window");
    return true;
  }
  if (threads_checked && facts.os_threads_left_running > 0) {
    Reject(r, "threads_left_running",
           fmt::format("{} thread(s) started by a timed call were still running after it "
                       "and the device were done: work outside the timed window",
                       facts.os_threads_left_running));
    return true;
  }
  return false;
}

// An exception the candidate's own handlers caught and went on from during a call
// (python/adaexplore_worker/integrity/fallback.py): the fallback happened, not merely its shape in
// the source.
bool DecideSwallowed(const Evidence& e, EvalResult& r) {
  const std::vector<Swallowed>& swallowed = e.facts.swallowed;
  if (!Applies(e.profile, "swallowed_exception") || swallowed.empty()) {
    return false;
  }
  const Swallowed& first = swallowed.front();
  Reject(r, "swallowed_exception",
         fmt::format("the candidate's handler at line {} swallowed {}: {} during {} ({} call(s)"
                     "{}): a fallback hides a kernel that failed; let the kernel fail",
                     first.line, first.type, FirstLine(first.message).substr(0, 200), first.during,
                     first.count,
                     swallowed.size() > 1
                         ? fmt::format(", and {} more handler(s)", swallowed.size() - 1)
                         : ""));
  return true;
}

bool DecideFlagsChanged(const Evidence& e, EvalResult& r) {
  const std::vector<std::string>& flags = e.facts.flags_changed_by_import;
  if (!Applies(e.profile, "flags_changed_by_import") || flags.empty()) {
    return false;
  }
  Reject(r, "flags_changed_by_import",
         "the candidate changed precision flags when imported: " + JsonText(nlohmann::json(flags)) +
             " (they were restored; a kernel must not change global numerics)");
  return true;
}

// The kernel trace of one call (python/adaexplore_worker/evaluation/trace.py): the candidate's own
// kernels must run, and PyTorch's compute kernels must stay within the share the profile allows.
bool DecideKernelTrace(const Evidence& e, EvalResult& r) {
  const EvalProfile& profile = e.profile;
  if (!Applies(profile, "kernel_trace") || !e.facts.kernel_trace) {
    return false;
  }
  const KernelTrace& trace = *e.facts.kernel_trace;
  const KernelKinds kinds = OperatorKinds(e.facts);  // A test's own setup kernels are not judged.
  const double own = kinds.own;
  const double pytorch = kinds.pytorch;
  std::string names;
  for (const TracedKernel& k : trace.kernels) {
    if (k.kind == "pytorch" && names.size() < 240) {
      names += (names.empty() ? "" : "; ") + FirstLine(k.name).substr(0, 80);
    }
  }
  if (own <= 0 && pytorch > 0) {  // "unrestricted" turns the check off (eval/checks.cc).
    Reject(r, "kernel_trace",
           fmt::format("kernel trace: the call ran only PyTorch's own kernels ({}), none of the "
                       "candidate's: its kernels are defined but not launched, or it falls back "
                       "to PyTorch",
                       names));
    return true;
  }
  const double share = own + pytorch > 0 ? pytorch / (own + pytorch) : 0.0;
  if (profile.pytorch_compute == PytorchCompute::kForbidden &&
      share > profile.pytorch_compute_share) {
    Reject(r, "kernel_trace",
           fmt::format("kernel trace: {:.0f}% of the call's kernel time was in PyTorch's compute "
                       "kernels ({}), above the {:.0f}% this run allows (pytorch_compute = "
                       "\"forbidden\"): write the kernel, or allow PyTorch compute",
                       100 * share, names, 100 * profile.pytorch_compute_share));
    return true;
  }
  return false;
}

bool DecideRevalidation(const Evidence& e, EvalResult& r) {
  const Timing& t = e.timing;
  if (!Applies(e.profile, "revalidation") ||
      (t.revalidation_failures <= 0 && t.inputs_mutated_runs <= 0)) {
    return false;
  }
  std::string first;
  if (const auto& f = t.first_revalidation_failure) {
    const std::string what =
        !f->problem ? "the outputs matched, the inputs changed"
        : f->problem == "values" && f->violations
            ? fmt::format("{} output elements outside the tolerance", *f->violations)
            : *f->problem;
    first = fmt::format("; the first at timed run {}: {}", f->run, what);
  }
  Reject(r, "revalidation",
         fmt::format("{} of {} timed runs gave outputs that do not match the reference on the "
                     "same fresh inputs ({} mutated their inputs{}): results are being replayed, "
                     "cached or computed incompletely",
                     t.revalidation_failures, t.revalidated, t.inputs_mutated_runs, first));
  return true;
}

// Work a call leaves on other streams (or threads) runs on after its stream's end event; three
// views of it, any one of which rejects:
//  - the kernel trace: the call's kernels that ran outside its window on the caller's stream
//    (trace.py; exact, for the one traced call);
//  - the tail of every timed run: the device-wide synchronise once the end event was reached,
//    against the reference's (an honest call leaves the device idle: a few microseconds);
//  - wall time against event time, for escapes of a large share of a long call;
//  - the GPU timeline (strict): GPU work launched outside every timed call by another thread
//    (gpu_timeline.py), above a share of the candidate's GPU time.
bool DecideStreamEscape(const Evidence& e, EvalResult& r) {
  if (!Applies(e.profile, "stream_escape") || !e.timing.meaningful) {
    return false;
  }
  // The floor absorbs CUPTI's timestamp rounding; an honest candidate launches nothing outside
  // its calls from threads of its own (torch launches on the caller's thread).
  constexpr double kOutsideShare = 0.05;
  constexpr double kOutsideFloorUs = 1;
  const TimingStats gpu = ComputeTimingStats(Samples(e.timing.candidate_gpu_ms));
  const double outside_us = e.timing.gpu_outside_us.value_or(0);
  if (outside_us > kOutsideFloorUs &&
      outside_us > kOutsideShare * 1e3 * gpu.mean_ms * std::max(gpu.runs, 1)) {
    Reject(r, "stream_escape",
           fmt::format("{} GPU records ran {:.4g} us of work launched outside every timed call by "
                       "a thread other than the harness's, against {:.4g} us of GPU time in the "
                       "candidate's {} timed runs: work done before or beside the timed window",
                       e.timing.gpu_outside_records, outside_us, 1e3 * gpu.mean_ms * gpu.runs,
                       gpu.runs));
    return true;
  }
  // Work joined to the caller's stream ends before the marker starts; the floor only absorbs
  // the rounding of CUPTI's timestamps.
  constexpr double kTraceFloorUs = 0.1;
  if (e.facts.kernel_trace && e.facts.kernel_trace->escaped_us.value_or(0) > kTraceFloorUs) {
    Reject(r, "stream_escape",
           fmt::format("{} of the call's kernels ran {:.3g} us outside the call's window on the "
                       "caller's stream (before it reached the call, or after it was done): work "
                       "escaped the timed stream (a side stream that does not wait for it, or "
                       "that it never waits for)",
                       e.facts.kernel_trace->escaped_kernels, *e.facts.kernel_trace->escaped_us));
    return true;
  }
  const TimingStats event = ComputeTimingStats(Samples(e.timing.candidate_ms));
  // Work on a side stream that does not wait for the timed one runs while the head start does,
  // before the window opens, and slows it: the candidate's head starts ran longer than planned by
  // more than the reference's did (whose calls queue everything behind the start event).
  const TimingStats head = ComputeTimingStats(Samples(e.timing.candidate_head_over_ms));
  const TimingStats reference_head = ComputeTimingStats(Samples(e.timing.reference_head_over_ms));
  const double early =
      head.median_ms - (reference_head.runs > 0 ? std::max(0.0, reference_head.median_ms) : 0);
  constexpr double kTailFloorMs = 0.05;
  constexpr double kTailShare = 0.1;
  if (event.runs > 0 && head.runs > 0 && early > kTailFloorMs &&
      early > kTailShare * event.median_ms) {
    Reject(r, "stream_escape",
           fmt::format("the head start before each timed call ran {:.3g} ms longer than planned "
                       "(median of {} runs; the reference's {:.3g} ms), against {:.3g} ms timed: "
                       "work of the call ran on the GPU before its window opened: it escaped the "
                       "timed stream (a side stream that does not wait for the timed one)",
                       head.median_ms, head.runs,
                       reference_head.runs > 0 ? reference_head.median_ms : 0.0, event.median_ms));
    return true;
  }
  const TimingStats tail = ComputeTimingStats(Samples(e.timing.candidate_tail_ms));
  const TimingStats reference_tail = ComputeTimingStats(Samples(e.timing.reference_tail_ms));
  // The device stayed busy after the stream's end event for more than the synchronise's own
  // latency (the reference's tail) by a floor and by a share of the timed figure.
  // A backstop for the timed runs, set above the noise the H200 showed: an honest fp16 matmul
  // of 0.2 ms had a tail 0.011 ms above its reference's under paper (the floor and share above,
  // for the head start too). The trace is the fine view.
  const double escaped = tail.median_ms - (reference_tail.runs > 0 ? reference_tail.median_ms : 0);
  if (event.runs > 0 && tail.runs > 0 && escaped > kTailFloorMs &&
      escaped > kTailShare * event.median_ms) {
    Reject(r, "stream_escape",
           fmt::format("after its stream's end event the device stayed busy {:.3g} ms more "
                       "than after the reference's (median of {} runs), against {:.3g} ms timed: "
                       "work escaped the timed stream (side streams or threads)",
                       escaped, tail.runs, event.median_ms));
    return true;
  }
  const TimingStats wall = ComputeTimingStats(Samples(e.timing.candidate_wall_ms));
  // Launch latency and the sync make up a little of any call's wall time; the floor keeps
  // short kernels from being flagged for that.
  constexpr double kEscapeFloorMs = 0.2;
  constexpr double kEscapeShare = 0.5;
  if (event.runs == 0 || wall.runs == 0 ||
      wall.median_ms - event.median_ms <= kEscapeShare * wall.median_ms + kEscapeFloorMs) {
    return false;
  }
  Reject(r, "stream_escape",
         fmt::format("the timed call took {:.3g} ms of wall time but its stream's events saw "
                     "only {:.3g} ms: work escaped the timed stream (side streams or threads)",
                     wall.median_ms, event.median_ms));
  return true;
}

// The launch hooks (python/adaexplore_worker/integrity/launches.py) saw a call that launched none
// of the candidate's kernels. Counts that may miss launches (an extension's registered ops) decide
// nothing.
bool DecideOwnLaunches(const Evidence& e, EvalResult& r) {
  const Launches& launches = e.facts.launches;
  if (!Applies(e.profile, "own_launches") || !launches.complete ||
      launches.calls_without_own <= 0) {
    return false;
  }
  const bool never = launches.calls_without_own >= launches.calls;
  Reject(r, "own_launches",
         never ? fmt::format("no call launched a kernel of the candidate's own ({} calls; its "
                             "Triton kernels and CUDA extensions are counted by identity): "
                             "PyTorch did the work",
                             launches.calls)
               : fmt::format("{} of {} calls launched no kernel of the candidate's own, the "
                             "first in {}: PyTorch did the work there",
                             launches.calls_without_own, launches.calls,
                             launches.first_without_own.value_or("?")));
  return true;
}

// Findings the result reports whether or not they rejected: the source's and the run's, and how
// the interpreter configured an autotuned kernel.
void CollectFindings(const Facts& facts, EvalResult& r) {
  for (const std::vector<Finding>* list : {&facts.static_facts.findings, &facts.runtime_findings}) {
    for (const Finding& f : *list) {
      r.findings.push_back(fmt::format(
          "{}{}: `{}`", f.rule, f.line > 0 ? fmt::format(" at line {}", f.line) : "", f.text));
    }
  }
  for (const Autotune& a : facts.launches.autotune) {
    r.findings.push_back(
        fmt::format("autotune {}: {} of {} configs, {}", a.kernel, a.chosen, a.configs, a.how));
  }
}

void CollectDegenerate(const Facts& facts, EvalResult& r) {
  for (const auto& [name, passed] : facts.null_kernels) {
    if (passed) {
      r.degenerate.push_back(name);
    }
  }
}

}  // namespace adaexplore::classify_internal
