// The verdict from how far an evaluation got (facts.status) when it did not finish: the errors
// the task, the candidate or the harness raised, timeouts, memory kills and crashes. A rule of
// kVerdictRules (eval/classify.cc).

#include <fmt/format.h>

#include <cstring>

#include "eval/checks.h"
#include "eval/classify_internal.h"

namespace adaexplore::classify_internal {
namespace {

std::string ErrorSummary(const FactError& error) {
  return error.message.empty() ? error.type : error.type + ": " + FirstLine(error.message);
}

std::string SignalName(const Facts& facts) {
  if (facts.signal) {
    const char* name = sigabbrev_np(static_cast<int>(*facts.signal));
    return name != nullptr ? std::string("SIG") + name : fmt::format("signal {}", *facts.signal);
  }
  if (facts.exit_code) {
    return fmt::format("exit code {}", *facts.exit_code);
  }
  return "an unknown cause";
}

void SetError(EvalResult& r, Verdict verdict, std::string reason, const Facts& facts) {
  r.verdict = verdict;
  r.reason = std::move(reason);
  r.error_text = facts.error.traceback;
  if (r.error_text.empty()) {
    r.error_text = facts.error.message;
  }
  if (r.error_text.empty() && !r.stderr_tail.empty()) {
    r.error_text = r.stderr_tail;
  }
}

// An exception from ModelNew's constructor or forward (`where`).
void ClassifyRaised(const std::string& where, const Facts& facts, EvalResult& r) {
  const FactError& error = facts.error;
  if (error.triton_compile) {
    SetError(r, Verdict::kCompileError, "a Triton kernel does not compile: " + ErrorSummary(error),
             facts);
  } else if (error.cuda_error && !error.cuda_error->empty()) {
    SetError(r, Verdict::kRuntimeError,
             fmt::format("CUDA error in {}: {} (the CUDA context was poisoned; the evaluation "
                         "process was discarded)",
                         where, *error.cuda_error),
             facts);
  } else if (error.out_of_memory) {
    SetError(r, Verdict::kRuntimeError,
             fmt::format("out of memory in {}: {}", where, ErrorSummary(error)), facts);
  } else {
    SetError(r, Verdict::kRuntimeError, fmt::format("{} raised {}", where, ErrorSummary(error)),
             facts);
  }
}

// Whether `facts` hold the profile's number of trials, each passed, and no failed determinism
// check: what a timeout after the trials keeps (the worker reports them when it kills a child
// that had finished them).
bool PassedEveryTrial(const Facts& facts, const EvalProfile& p) {
  if (facts.trials.size() < static_cast<size_t>(p.job.trials)) {
    return false;
  }
  for (const Trial& trial : facts.trials) {
    if (!trial.passed) {
      return false;
    }
  }
  return facts.determinism.passed;
}

// For a task too big or too slow for this machine: how to judge it smaller (a smoke test).
std::string ShrinkHint(const EvalProfile& p) {
  return p.job.shrink > 1 ? "" : " (--shrink 64 judges it on smaller sizes, as a smoke test)";
}

void ClassifyTimeout(const Facts& facts, const EvalProfile& p, EvalResult& r) {
  const std::string& phase = facts.phase;
  if (IsTaskPhase(phase)) {
    // The candidate is imported after these phases: only the task's own code ran.
    SetError(r, Verdict::kTaskError,
             fmt::format("the task did not load and make its reference outputs within {:g} s "
                         "(stuck during {}): no candidate can be judged against it{}",
                         facts.limit_s.value_or(p.timeout_s), phase, ShrinkHint(p)),
             facts);
    return;
  }
  r.passed_trials = PassedEveryTrial(facts, p);
  if (!facts.message.empty()) {  // Stopped early, and the worker says why (a kernel that spins).
    SetError(r, Verdict::kTimeout, facts.message + "; its process group was killed", facts);
    return;
  }
  SetError(r, Verdict::kTimeout,
           r.passed_trials
               ? fmt::format("correct on all {} trials, but not finished within {:g} s "
                             "(during {}): a slow correct kernel, not timed; its process "
                             "group was killed",
                             p.job.trials, p.timeout_s, phase)
               : fmt::format("no result within {:g} s (during {}); its process group was "
                             "killed",
                             p.timeout_s, phase),
           facts);
}

void ClassifyMemoryLimit(const Facts& facts, const EvalProfile& p, EvalResult& r) {
  const double limit_mb = facts.memory_limit_mb.value_or(p.memory_limit_mb);
  if (IsTaskPhase(facts.phase)) {
    // Only the task's code ran, with the worker's whole memory (see zygote.py).
    SetError(r, Verdict::kTaskError,
             fmt::format("the task needs more than {:g} MiB of host memory to load and make "
                         "its reference outputs (during {}): no candidate can be judged "
                         "against it on this worker{}",
                         limit_mb, facts.phase, ShrinkHint(p)),
             facts);
    return;
  }
  SetError(r, Verdict::kRuntimeError,
           fmt::format("host memory above the limit of {:g} MiB (during {}); killed", limit_mb,
                       facts.phase),
           facts);
}

// A status other than kOk: the verdict follows from how far the evaluation got.
void ClassifyFailureStatus(const Facts& facts, const EvalProfile& p, EvalResult& r) {
  const FactError& error = facts.error;
  if (error.type == "NeedsGpu") {
    // A CUDA C++ kernel on a CPU-only evaluation (launches.py): not the kernel's failure, and no
    // verdict on it can be had here.
    SetError(r, Verdict::kError,
             "needs a GPU: a CUDA C++ kernel is built and checked only on a GPU, and this "
             "evaluation ran on the CPU (--device cpu, or no GPU visible)",
             facts);
    return;
  }
  switch (facts.status) {
    case FactStatus::kOk:
      break;
    case FactStatus::kTaskError:
      SetError(r, Verdict::kTaskError, "the task itself failed: " + ErrorSummary(error), facts);
      break;
    case FactStatus::kImportError:
      SetError(r, Verdict::kCompileError, "the candidate does not load: " + ErrorSummary(error),
               facts);
      break;
    case FactStatus::kInitError:
    case FactStatus::kForwardError:
      ClassifyRaised(
          facts.status == FactStatus::kInitError ? "ModelNew(*get_init_inputs())" : "forward",
          facts, r);
      break;
    case FactStatus::kTimeout:
      ClassifyTimeout(facts, p, r);
      break;
    case FactStatus::kMemoryLimit:
      ClassifyMemoryLimit(facts, p, r);
      break;
    case FactStatus::kCrash:
      if (IsTaskPhase(facts.phase)) {
        // No candidate code had run (phases only move forward): not the kernel's verdict, and
        // never cached or rewarded. Four full-size tasks at once on 24 GB died so (issue 55).
        SetError(r, Verdict::kError,
                 fmt::format("the evaluation process died ({}) during {}, before the "
                             "candidate's code ran: the harness's failure, not the kernel's "
                             "(host memory is the usual cause: fewer --slots, or --shrink)",
                             SignalName(facts), facts.phase),
                 facts);
        break;
      }
      SetError(r, Verdict::kCrash,
               !facts.message.empty()
                   ? facts.message
                   : fmt::format("the evaluation process died ({}) during {} without a result",
                                 SignalName(facts), facts.phase),
               facts);
      break;
    case FactStatus::kProtocolViolation:
      SetError(r, Verdict::kRejected, facts.message, facts);
      r.check = GetIntegrityCheck("forged_result").name;
      break;
    case FactStatus::kInputsChanged:
      SetError(r, Verdict::kRejected, error.message, facts);
      r.check = GetIntegrityCheck("inputs_mutated").name;
      break;
    case FactStatus::kCancelled:
      SetError(r, Verdict::kError, "cancelled before it finished", facts);
      break;
    case FactStatus::kHarnessError:
      SetError(r, Verdict::kError, "the harness failed: " + ErrorSummary(error), facts);
      break;
  }
}

}  // namespace

bool DecideStatus(const Evidence& e, EvalResult& r) {
  if (e.facts.status == FactStatus::kOk) {
    return false;
  }
  ClassifyFailureStatus(e.facts, e.profile, r);
  return true;
}

}  // namespace adaexplore::classify_internal
