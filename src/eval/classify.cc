#include "eval/classify.h"

// A verdict is the first rule of kVerdictRules (below) that decides, over facts checked against
// the schema; a candidate no rule decides is correct, and is then timed and bounded.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <string>

#include "core/json_text.h"
#include "eval/checks.h"

namespace adaexplore {
namespace {

using nlohmann::json;

std::string Str(const json& j, const char* key, std::string fallback = "") {
  if (j.is_object() && j.contains(key) && j[key].is_string()) {
    return j[key].get<std::string>();
  }
  return fallback;
}

bool Bool(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_boolean() && j[key].get<bool>();
}

std::optional<double> Num(const json& j, const char* key) {
  if (j.is_object() && j.contains(key) && j[key].is_number()) {
    return j[key].get<double>();
  }
  return std::nullopt;
}

std::string FirstLine(const std::string& text) {
  const size_t newline = text.find('\n');
  std::string line = newline == std::string::npos ? text : text.substr(0, newline);
  constexpr size_t kMaxReason = 400;
  if (line.size() > kMaxReason) {
    line = line.substr(0, kMaxReason) + "...";
  }
  return line;
}

std::string ErrorSummary(const json& error) {
  const std::string type = Str(error, "type", "error");
  const std::string message = Str(error, "message");
  return message.empty() ? type : type + ": " + FirstLine(message);
}

std::string SignalName(const json& facts) {
  if (auto sig = Num(facts, "signal")) {
    const char* name = sigabbrev_np(static_cast<int>(*sig));
    return name != nullptr ? std::string("SIG") + name : fmt::format("signal {}", *sig);
  }
  if (auto code = Num(facts, "exit_code")) {
    return fmt::format("exit code {}", *code);
  }
  return "an unknown cause";
}

// A rejection by `check` (eval/checks.h), which names it in the result.
void Reject(EvalResult& r, std::string_view check, std::string reason) {
  r.verdict = Verdict::kRejected;
  r.check = GetIntegrityCheck(check).name;
  r.reason = std::move(reason);
}

// Whether the profile runs `check`.
bool Applies(const EvalProfile& profile, std::string_view check) {
  return CheckApplies(GetIntegrityCheck(check), profile);
}

void SetError(EvalResult& r, Verdict verdict, std::string reason, const json& facts) {
  r.verdict = verdict;
  r.reason = std::move(reason);
  const json error = facts.value("error", json::object());
  r.error_text = Str(error, "traceback");
  if (r.error_text.empty()) {
    r.error_text = Str(error, "message");
  }
  if (r.error_text.empty() && !r.stderr_tail.empty()) {
    r.error_text = r.stderr_tail;
  }
}

// An exception from ModelNew's constructor or forward (`where`).
void ClassifyRaised(const std::string& where, const json& error, const json& facts, EvalResult& r) {
  if (Bool(error, "triton_compile")) {
    SetError(r, Verdict::kCompileError, "a Triton kernel does not compile: " + ErrorSummary(error),
             facts);
  } else if (!Str(error, "cuda_error").empty()) {
    SetError(r, Verdict::kRuntimeError,
             fmt::format("CUDA error in {}: {} (the CUDA context was poisoned; the evaluation "
                         "process was discarded)",
                         where, Str(error, "cuda_error")),
             facts);
  } else if (Bool(error, "out_of_memory")) {
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
bool PassedEveryTrial(const json& facts, const EvalProfile& p) {
  const json trials = facts.value("trials", json::array());
  if (!trials.is_array() || trials.size() < static_cast<size_t>(p.job.trials)) {
    return false;
  }
  for (const json& trial : trials) {
    if (!trial.is_object() || !trial.value("passed", false)) {
      return false;
    }
  }
  const json determinism = facts.value("determinism", json::object());
  return !determinism.is_object() || determinism.value("passed", true);
}

// A status other than kOk: the verdict follows from how far the evaluation got.
void ClassifyFailureStatus(FactStatus status, const json& facts, const EvalProfile& p,
                           EvalResult& r) {
  const json error = facts.value("error", json::object());
  const std::string phase = Str(facts, "phase", "unknown");
  if (error.is_object() && error.value("type", "") == "NeedsGpu") {
    // A CUDA C++ kernel on a CPU-only evaluation (launches.py): not the kernel's failure, and no
    // verdict on it can be had here.
    SetError(r, Verdict::kError,
             "needs a GPU: a CUDA C++ kernel is built and checked only on a GPU, and this "
             "evaluation ran on the CPU (--device cpu, or no GPU visible)",
             facts);
    return;
  }
  switch (status) {
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
      ClassifyRaised(status == FactStatus::kInitError ? "ModelNew(*get_init_inputs())" : "forward",
                     error, facts, r);
      break;
    case FactStatus::kTimeout:
      if (IsTaskPhase(phase)) {
        // The candidate is imported after these phases: only the task's own code ran.
        SetError(r, Verdict::kTaskError,
                 fmt::format("the task did not load and make its reference outputs within {:g} s "
                             "(stuck during {}): no candidate can be judged against it",
                             Num(facts, "limit_s").value_or(p.timeout_s), phase),
                 facts);
        break;
      }
      r.passed_trials = PassedEveryTrial(facts, p);
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
      break;
    case FactStatus::kMemoryLimit:
      if (IsTaskPhase(phase)) {
        // Only the task's code ran, with the worker's whole memory (see zygote.py).
        SetError(r, Verdict::kTaskError,
                 fmt::format("the task needs more than {:g} MiB of host memory to load and make "
                             "its reference outputs (during {}): no candidate can be judged "
                             "against it on this worker",
                             Num(facts, "memory_limit_mb").value_or(p.memory_limit_mb), phase),
                 facts);
        break;
      }
      SetError(r, Verdict::kRuntimeError,
               fmt::format("host memory above the limit of {:g} MiB (during {}); killed",
                           Num(facts, "memory_limit_mb").value_or(p.memory_limit_mb), phase),
               facts);
      break;
    case FactStatus::kCrash: {
      std::string reason = Str(facts, "message");
      if (reason.empty()) {
        reason = fmt::format("the evaluation process died ({}) during {} without a result",
                             SignalName(facts), phase);
      }
      SetError(r, Verdict::kCrash, reason, facts);
      break;
    }
    case FactStatus::kProtocolViolation:
      SetError(r, Verdict::kRejected, Str(facts, "message"), facts);
      r.check = GetIntegrityCheck("forged_result").name;
      break;
    case FactStatus::kInputsChanged:
      SetError(r, Verdict::kRejected, Str(error, "message"), facts);
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

std::string DescribeValues(const json& trial, const json& values) {
  std::string where;
  if (values.contains("worst") && values["worst"].is_object()) {
    const json& w = values["worst"];
    where = fmt::format("; worst at flat index {}: got {}, expected {}", w.value("flat_index", 0),
                        Str(w, "out_text", "?"), Str(w, "ref_text", "?"));
  }
  return fmt::format(
      "trial {} ({} inputs): {} of {} elements outside tolerance{}{}{}", trial.value("index", 0),
      Str(trial, "distribution", "?"), values.value("violations", 0), values.value("numel", 0),
      values.value("nonfinite_out", 0) > 0
          ? fmt::format(" ({} NaN/Inf)", values.value("nonfinite_out", 0))
          : "",
      where,
      Bool(trial, "integrity") ? "; an integrity trial: the profile's own trials use the task's "
                                 "inputs, and the kernel is wrong on others of the same magnitude"
                               : "");
}

// Returns true and sets the verdict when a trial failed.
bool ClassifyTrials(const json& trials, EvalResult& r) {
  for (const json& trial : trials) {
    if (trial.value("passed", false)) {
      continue;
    }
    for (const std::string& problem : trial.value("problems", std::vector<std::string>{})) {
      r.verdict = Verdict::kIncorrect;
      r.reason = fmt::format("trial {}: {}", trial.value("index", 0), problem);
      return true;
    }
    for (const json& output : trial.value("outputs", json::array())) {
      const json form = output.value("form", json::object());
      const bool integrity = !form.value("exact_tensor", true) || Bool(form, "zero_stride") ||
                             Bool(form, "aliases_input");
      for (const std::string& problem : form.value("problems", std::vector<std::string>{})) {
        std::string reason = fmt::format("trial {}: {}", trial.value("index", 0), problem);
        if (integrity) {
          Reject(r, "output_form", std::move(reason));
        } else {
          r.verdict = Verdict::kIncorrect;
          r.reason = std::move(reason);
        }
        return true;
      }
      const json values = output.value("values", json::object());
      if (!values.value("passed", true)) {
        r.verdict = Verdict::kIncorrect;
        r.reason = DescribeValues(trial, values);
        return true;
      }
    }
    const json mutated = trial.value("inputs_mutated", json::array());
    if (!mutated.empty()) {
      Reject(r, "inputs_mutated",
             fmt::format("trial {}: the candidate modified its input(s) {}",
                         trial.value("index", 0), JsonText(mutated)));
      return true;
    }
    r.verdict = Verdict::kIncorrect;
    r.reason = fmt::format("trial {} failed", trial.value("index", 0));
    return true;
  }
  return false;
}

void CollectErrorFigures(const json& trials, EvalResult& r) {
  for (const json& trial : trials) {
    for (const json& output : trial.value("outputs", json::array())) {
      const json values = output.value("values", json::object());
      if (auto a = Num(values, "max_abs_err")) {
        r.max_abs_err = std::max(r.max_abs_err.value_or(0.0), *a);
      }
      if (auto rel = Num(values, "max_rel_err")) {
        r.max_rel_err = std::max(r.max_rel_err.value_or(0.0), *rel);
      }
    }
  }
}

std::vector<double> Samples(const json& timing, const char* key) {
  std::vector<double> out;
  if (timing.contains(key) && timing[key].is_array()) {
    for (const json& v : timing[key]) {
      if (v.is_number()) {
        out.push_back(v.get<double>());
      }
    }
  }
  return out;
}

void ClassifyTiming(const json& timing, const EvalProfile& p, EvalResult& r) {
  r.statistic = p.statistic;
  r.timing_meaningful = timing.value("meaningful", false);
  const TimingStats candidate = ComputeTimingStats(Samples(timing, "candidate_ms"));
  const TimingStats reference = ComputeTimingStats(Samples(timing, "reference_ms"));
  if (candidate.runs > 0) {
    r.candidate_timing = candidate;
  }
  if (reference.runs > 0) {
    r.reference_timing = reference;
  }
  const TimingStats compiled = ComputeTimingStats(Samples(timing, "compiled_reference_ms"));
  if (compiled.runs > 0) {
    r.compiled_reference_timing = compiled;
  }
  const double c = candidate.Of(p.statistic);
  if (candidate.runs > 0 && reference.runs > 0 && c > 0) {
    r.speedup = reference.Of(p.statistic) / c;
  }
  if (candidate.runs > 0 && compiled.runs > 0 && c > 0) {
    r.speedup_compiled = compiled.Of(p.statistic) / c;
  }
}

// The task's expert kernel (facts.expert: its name and whether it agreed with the reference,
// timing.expert_ms): a speedup over it only when it computes what the reference does.
void ClassifyExpert(const json& facts, const json& timing, const EvalProfile& p, EvalResult& r) {
  const json expert = facts.value("expert", json::object());
  const TimingStats stats = ComputeTimingStats(Samples(timing, "expert_ms"));
  if (!expert.is_object() || !expert.contains("name") || stats.runs == 0) {
    return;
  }
  r.expert = expert.value("name", "");
  r.expert_timing = stats;
  if (!expert.value("agrees", false)) {
    r.findings.push_back(fmt::format(
        "expert baseline {} does not match the reference within the profile's tolerance "
        "(relative error {:.3g}): no speedup over it is given",
        r.expert, expert.value("relative_error", 0.0)));
    return;
  }
  const double c = r.candidate_timing ? r.candidate_timing->Of(p.statistic) : 0;
  if (c > 0) {
    r.speedup_expert = stats.Of(p.statistic) / c;
  }
}

// Rejects on the first finding whose rule the profile rejects: `static` findings come from the
// source, `runtime_findings` from what the candidate's code did (audit hook, ancestry,
// torch.compile counters).
bool ClassifyFindings(const json& facts, const EvalProfile& profile, EvalResult& r) {
  for (const char* source : {"static", "runtime"}) {
    const bool from_source = std::string(source) == "static";
    const json list = from_source
                          ? facts.value("static", json::object()).value("findings", json::array())
                          : facts.value("runtime_findings", json::array());
    if (!list.is_array()) {
      continue;
    }
    for (const json& finding : list) {
      const std::string rule = Str(finding, "rule");
      const IntegrityCheck* check = FindIntegrityCheck(rule);
      if (check == nullptr || check->kind != CheckKind::kSourceRule ||
          !CheckApplies(*check, profile)) {
        continue;
      }
      Reject(r, rule,
             from_source
                 ? fmt::format("static check '{}' at line {}: `{}`: {}", rule,
                               finding.value("line", 0), Str(finding, "text"), check->why)
                 : fmt::format("runtime check '{}': {}{}: {}", rule, Str(finding, "text"),
                               finding.value("line", 0) > 0
                                   ? fmt::format(" (candidate line {})", finding.value("line", 0))
                                   : "",
                               check->why));
      return true;
    }
  }
  return false;
}

// Findings the result reports whether or not they rejected: the source's and the run's, and how
// the interpreter configured an autotuned kernel.
void CollectFindings(const json& facts, EvalResult& r) {
  const json source = facts.value("static", json::object()).value("findings", json::array());
  const json runtime = facts.value("runtime_findings", json::array());
  for (const json* list : {&source, &runtime}) {
    for (const json& f : list->is_array() ? *list : json::array()) {
      if (!f.is_object()) {
        continue;
      }
      const int line = f.value("line", 0);
      r.findings.push_back(fmt::format("{}{}: `{}`", Str(f, "rule"),
                                       line > 0 ? fmt::format(" at line {}", line) : "",
                                       Str(f, "text")));
    }
  }
  const json launches = facts.value("launches", json::object());
  const json autotune = launches.is_object() ? launches.value("autotune", json::array()) : json();
  for (const json& a : autotune.is_array() ? autotune : json::array()) {
    if (a.is_object()) {
      r.findings.push_back(fmt::format("autotune {}: {} of {} configs, {}", Str(a, "kernel"),
                                       Str(a, "chosen"), a.value("configs", 0), Str(a, "how")));
    }
  }
}

void CollectDegenerate(const json& facts, EvalResult& r) {
  const json nulls = facts.value("null_kernels", json::object());
  if (!nulls.is_object()) {
    return;
  }
  for (const auto& [name, passed] : nulls.items()) {
    if (passed.is_boolean() && passed.get<bool>()) {
      r.degenerate.push_back(name);
    }
  }
}

// Runtime integrity facts that reject whatever else happened: replaced functions and threads
// left running.
bool ClassifyRuntimeIntegrity(const json& facts, const EvalProfile& profile, EvalResult& r) {
  const json patched = facts.value("patched", json::array());
  if (Applies(profile, "patching") && patched.is_array() && !patched.empty()) {
    Reject(r, "patching",
           "the candidate replaced " + JsonText(patched) +
               " (restored before checking): timers, synchronisation and the functions checks "
               "use must not be patched");
    return true;
  }
  const json threads = facts.value("threads_left_running", json::array());
  const bool threads_checked = Applies(profile, "threads_left_running");
  if (threads_checked && threads.is_array() && !threads.empty()) {
    Reject(r, "threads_left_running",
           "the candidate left Python thread(s) " + JsonText(threads) +
               " running after forward returned: work outside the timed window");
    return true;
  }
  const int os_threads = facts.value("os_threads_left_running", 0);
  if (threads_checked && os_threads > 0) {
    Reject(r, "threads_left_running",
           fmt::format("{} thread(s) started by a timed call were still running after it "
                       "and the device were done: work outside the timed window",
                       os_threads));
    return true;
  }
  return false;
}

// The speed-of-light bound in milliseconds, if the facts and ceilings allow one: the time to
// read the forward inputs once and write the outputs once at the measured copy bandwidth. The
// reference's flops and parameter bytes are no bound: on the H200, real kernels of the reference
// run (KernelBench L2 18 and 42) beat them legitimately, by algebra (a GEMM whose output is summed
// needs only a GEMV) and by reducing parameters once at construction.
std::optional<double> SpeedOfLightMs(const json& facts, const DeviceCeilings* ceilings) {
  const json roofline = facts.value("roofline", json::object());
  if (ceilings == nullptr || !ceilings->known() || !roofline.is_object()) {
    return std::nullopt;
  }
  const double seconds = roofline.value("io_bytes", 0.0) / ceilings->copy_bytes_per_s;
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
  const double measured = r.candidate_timing->Of(r.statistic.value_or(Statistic::kMedian));
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

// The kernel trace of one call (python/adaexplore_worker/trace.py): the candidate's own kernels
// must run, and PyTorch's compute kernels must stay within the share the profile allows.
bool ClassifyKernelTrace(const json& facts, const EvalProfile& profile, EvalResult& r) {
  const json trace = facts.value("kernel_trace", json());
  if (!Applies(profile, "kernel_trace") || !trace.is_object()) {
    return false;
  }
  const double own = Num(trace, "own_us").value_or(0.0);
  const double pytorch = Num(trace, "pytorch_us").value_or(0.0);
  std::string names;
  for (const json& k : trace.value("kernels", json::array())) {
    if (k.is_object() && Str(k, "kind") == "pytorch" && names.size() < 240) {
      names += (names.empty() ? "" : "; ") + FirstLine(Str(k, "name")).substr(0, 80);
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

// What every verdict rule reads: the facts, already checked against the schema (so each fact
// present has its declared type), and the profile.
struct Evidence {
  const json& facts;
  FactStatus status;
  const json& trials;
  const json& timing;  // An object; empty when the worker timed nothing.
  const EvalProfile& profile;
};

// Whether the candidate's code ran at all: a forged result and a candidate that does not load
// are decided by their status, before anything the candidate did.
bool Ran(const Evidence& e) {
  return e.status != FactStatus::kImportError && e.status != FactStatus::kTaskError &&
         e.status != FactStatus::kProtocolViolation;
}

bool DecideFindings(const Evidence& e, EvalResult& r) {
  return Ran(e) && ClassifyFindings(e.facts, e.profile, r);
}

bool DecideRuntimeIntegrity(const Evidence& e, EvalResult& r) {
  return Ran(e) && ClassifyRuntimeIntegrity(e.facts, e.profile, r);
}

bool DecideStatus(const Evidence& e, EvalResult& r) {
  if (e.status == FactStatus::kOk) {
    return false;
  }
  ClassifyFailureStatus(e.status, e.facts, e.profile, r);
  return true;
}

// An exception the candidate's own handlers caught and went on from during a call
// (python/adaexplore_worker/fallback.py): the fallback happened, not merely its shape in the
// source.
bool DecideSwallowed(const Evidence& e, EvalResult& r) {
  const json swallowed = e.facts.value("swallowed", json::array());
  if (!Applies(e.profile, "swallowed_exception") || swallowed.empty() ||
      !swallowed.front().is_object()) {
    return false;
  }
  const json& first = swallowed.front();
  Reject(r, "swallowed_exception",
         fmt::format("the candidate's handler at line {} swallowed {}: {} during {} ({} call(s)"
                     "{}): a fallback hides a kernel that failed; let the kernel fail",
                     first.value("line", 0), Str(first, "type"),
                     FirstLine(Str(first, "message")).substr(0, 200), Str(first, "during"),
                     first.value("count", 1),
                     swallowed.size() > 1
                         ? fmt::format(", and {} more handler(s)", swallowed.size() - 1)
                         : ""));
  return true;
}

// The launch hooks (python/adaexplore_worker/launches.py) saw a call that launched none of the
// candidate's kernels. Counts that may miss launches (an extension's registered ops) decide
// nothing.
bool DecideOwnLaunches(const Evidence& e, EvalResult& r) {
  const json launches = e.facts.value("launches", json::object());
  if (!Applies(e.profile, "own_launches") || !launches.is_object() ||
      !launches.value("complete", false) || launches.value("calls_without_own", 0) <= 0) {
    return false;
  }
  const bool never = launches.value("calls_without_own", 0) >= launches.value("calls", 0);
  Reject(r, "own_launches",
         never ? fmt::format("no call launched a kernel of the candidate's own ({} calls; its "
                             "Triton kernels and CUDA extensions are counted by identity): "
                             "PyTorch did the work",
                             launches.value("calls", 0))
               : fmt::format("{} of {} calls launched no kernel of the candidate's own, the "
                             "first in {}: PyTorch did the work there",
                             launches.value("calls_without_own", 0), launches.value("calls", 0),
                             launches.value("first_without_own", std::string("?"))));
  return true;
}

bool DecideNoTrials(const Evidence& e, EvalResult& r) {
  if (!e.trials.empty()) {
    return false;
  }
  r.verdict = Verdict::kError;
  r.reason = "the worker reported success without any trial results";
  return true;
}

bool DecideTrials(const Evidence& e, EvalResult& r) { return ClassifyTrials(e.trials, r); }

bool DecideDeterminism(const Evidence& e, EvalResult& r) {
  const json determinism = e.facts.value("determinism", json::object());
  if (!determinism.contains("passed") || Bool(determinism, "passed")) {
    return false;
  }
  r.verdict = Verdict::kIncorrect;
  r.reason = Bool(determinism, "special_mismatch")
                 ? "nondeterministic: two runs on the same inputs disagree on NaN/Inf elements"
                 : fmt::format(
                       "nondeterministic: two runs on the same inputs differ by up to {:.3g}, "
                       "beyond the tolerance",
                       Num(determinism, "max_abs_diff").value_or(0.0));
  return true;
}

bool DecideFlagsChanged(const Evidence& e, EvalResult& r) {
  const json flags = e.facts.value("flags_changed_by_import", json::array());
  if (!Applies(e.profile, "flags_changed_by_import") || flags.empty()) {
    return false;
  }
  Reject(r, "flags_changed_by_import",
         "the candidate changed precision flags when imported: " + JsonText(flags) +
             " (they were restored; a kernel must not change global numerics)");
  return true;
}

bool DecideKernelTrace(const Evidence& e, EvalResult& r) {
  return ClassifyKernelTrace(e.facts, e.profile, r);
}

bool DecideRevalidation(const Evidence& e, EvalResult& r) {
  const json& t = e.timing;
  if (!Applies(e.profile, "revalidation") ||
      (t.value("revalidation_failures", 0) <= 0 && t.value("inputs_mutated_runs", 0) <= 0)) {
    return false;
  }
  Reject(r, "revalidation",
         fmt::format("{} of {} timed runs gave outputs that do not match the reference on the "
                     "same fresh inputs ({} mutated their inputs): results are being replayed, "
                     "cached or computed incompletely",
                     t.value("revalidation_failures", 0), t.value("revalidated", 0),
                     t.value("inputs_mutated_runs", 0)));
  return true;
}

// The worst relative error (max |out - ref| / max |ref|) of the checked outputs, against the
// trials' references.
double TrialRelativeError(const json& trials, bool task_inputs_only = false) {
  double worst = 0;
  for (const json& trial : trials) {
    // "task", or "task (fallback from normal)"; an integrity trial is never on them.
    const bool on_task_inputs =
        !Bool(trial, "integrity") && Str(trial, "distribution").starts_with("task");
    if (task_inputs_only && !on_task_inputs) {
      continue;
    }
    for (const json& output : trial.value("outputs", json::array())) {
      const json values = output.value("values", json::object());
      const double scale = Num(values, "ref_max_abs").value_or(0.0);
      if (scale > 0) {
        worst = std::max(worst, Num(values, "max_abs_err").value_or(0.0) / scale);
      }
    }
  }
  return worst;
}

// Timed outputs much less accurate than every checked one: the kernel computes differently when
// timed (fp16 from the seventh call on), even where the tolerance would let both pass. An honest
// kernel's error on fresh inputs of the same task is of the same order as on the trials'; the
// floor and the factor leave room for rounding that varies with the values and for atomics.
// The machine epsilon of the least precise floating-point output the reference gives (0 when
// none is, or the facts do not say): two of it is rounding of the output itself, not drift.
double OutputEpsilon(const json& facts) {
  static const std::map<std::string, double, std::less<>> kEpsilon = {
      {"float64", 2.2e-16},  {"float32", 1.19e-7},     {"float16", 9.77e-4},
      {"bfloat16", 7.81e-3}, {"float8_e4m3fn", 0.125}, {"float8_e5m2", 0.25}};
  double epsilon = 0;
  const json reference = facts.value("reference", json::object());
  for (const json& output : reference.value("outputs", json::array())) {
    const auto it = kEpsilon.find(output.is_object() ? output.value("dtype", std::string()) : "");
    epsilon = std::max(epsilon, it == kEpsilon.end() ? 0.0 : it->second);
  }
  return epsilon;
}

bool DecideTimedAccuracy(const Evidence& e, EvalResult& r) {
  constexpr double kFactor = 20;
  constexpr double kFloor = 1e-5;  // Relative: ~80 float32 ulps of the output's scale.
  const std::optional<double> timed = Num(e.timing, "revalidated_relative_error");
  if (!Applies(e.profile, "timed_accuracy") || !timed) {
    return false;
  }
  double self_error = 0;  // How far the task-precision reference (timing's) is from exact.
  const json reference = e.facts.value("reference", json::object());
  for (const json& v : reference.value("self_error", json::array())) {
    self_error = std::max(self_error, v.is_number() ? v.get<double>() : 0.0);
  }
  // Timed runs get the task's inputs: compared with the trials on them (a kernel that turns to
  // fp16 after the first few calls must not hide behind a later trial's error).
  const double checked = TrialRelativeError(e.trials, /*task_inputs_only=*/true) + self_error;
  // A bfloat16 output rounds to 2^-8 of its scale: a timed run one rounding step from the
  // reference, where the trials happened to match exactly, is no drift.
  if (*timed <= std::max(kFactor * std::max(checked, kFloor), 2 * OutputEpsilon(e.facts))) {
    return false;
  }
  Reject(r, "timed_accuracy",
         fmt::format("timed outputs were up to {:.3g} of the output's scale from the reference, "
                     "the checked ones at most {:.3g}: the kernel computes less accurately when "
                     "timed",
                     *timed, checked));
  return true;
}

bool DecideStreamEscape(const Evidence& e, EvalResult& r) {
  if (!Applies(e.profile, "stream_escape") || !e.timing.value("meaningful", false)) {
    return false;
  }
  const TimingStats event = ComputeTimingStats(Samples(e.timing, "candidate_ms"));
  const TimingStats wall = ComputeTimingStats(Samples(e.timing, "candidate_wall_ms"));
  // Work left on other streams (or threads) finishes inside the device-wide sync but outside
  // the events. Launch latency and the sync make up a little of any call's wall time; the
  // floor keeps short kernels from being flagged for that.
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

// A rule of the verdict: when it decides, it has set the verdict and the reason, and no later
// rule runs.
struct VerdictRule {
  std::string_view name;
  bool (*decide)(const Evidence&, EvalResult&);
};

// In the order of the evaluation, so the first failure decides: a candidate that never imported
// is a compile error even if it would also have timed out, and its static findings come before
// what happened when it ran. A candidate no rule decides is correct.
constexpr std::array<VerdictRule, 13> kVerdictRules = {{
    {"findings", DecideFindings},
    {"runtime_integrity", DecideRuntimeIntegrity},
    {"status", DecideStatus},
    {"swallowed_exception", DecideSwallowed},
    {"no_trials", DecideNoTrials},
    {"trials", DecideTrials},
    {"determinism", DecideDeterminism},
    {"flags_changed_by_import", DecideFlagsChanged},
    {"kernel_trace", DecideKernelTrace},
    {"revalidation", DecideRevalidation},
    {"timed_accuracy", DecideTimedAccuracy},
    {"stream_escape", DecideStreamEscape},
    {"own_launches", DecideOwnLaunches},
}};

// A correct kernel whose error passes the profile's tolerance but not strict's: it computes in
// reduced precision (fp16, TF32) or approximates (a subsample, a series). Paper's 5e-2 admits that
// by design; the result says so, with the figure.
void NoteReducedPrecision(const json& trials, const EvalProfile& p, EvalResult& r) {
  const double strict = StrictTolerance(p.job.precision);
  const double error = TrialRelativeError(trials);
  if (std::max(p.job.atol, p.job.rtol) > strict && error > strict) {
    r.findings.push_back(fmt::format(
        "less accurate than strict admits: relative error {:.2g} (max |out - ref| / max |ref| "
        "over the trials) is within this profile's tolerance ({:g}) and above strict's ({:g}): "
        "reduced precision or an approximation",
        error, std::max(p.job.atol, p.job.rtol), strict));
  }
}

void ClassifyChecked(const json& facts, const EvalProfile& profile, EvalResult& r,
                     const DeviceCeilings* ceilings) {
  if (!facts.is_object()) {
    r.verdict = Verdict::kError;
    r.reason = "the worker sent no facts";
    return;
  }
  r.facts = facts;
  r.wall_s = Num(facts, "wall_s").value_or(0.0);
  r.stdout_tail = Str(facts, "stdout");
  r.stderr_tail = Str(facts, "stderr");
  if (r.device.empty()) {
    r.device = Str(facts, "device_name");
  }
  const json trials = facts.value("trials", json::array());
  CollectErrorFigures(trials, r);
  CollectDegenerate(facts, r);
  if (const Status valid = ValidateFacts(facts); !valid.ok()) {
    r.verdict = Verdict::kError;
    r.reason = "malformed facts from the worker: " + valid.message();
    return;
  }
  CollectFindings(facts, r);
  const json timing = facts.value("timing", json::object());
  const Evidence evidence{.facts = facts,
                          .status = *StatusOf(facts),
                          .trials = trials,
                          .timing = timing,
                          .profile = profile};
  for (const VerdictRule& rule : kVerdictRules) {
    if (rule.decide(evidence, r)) {
      return;
    }
  }
  r.verdict = Verdict::kCorrect;
  r.passed_trials = true;
  r.reason = "matches the reference on every trial";
  NoteReducedPrecision(trials, profile, r);
  if (!timing.empty()) {
    ClassifyTiming(timing, profile, r);
    ClassifyExpert(facts, timing, profile, r);
  }
  r.speed_of_light_ms = SpeedOfLightMs(facts, ceilings);
  ClassifySpeedOfLight(profile, r);
}

}  // namespace

void Classify(const json& facts, const EvalProfile& profile, EvalResult& r,
              const DeviceCeilings* ceilings) {
  r.profile = profile.name;
  try {
    ClassifyChecked(facts, profile, r, ceilings);
  } catch (const json::exception& e) {
    // Facts come from another process: a wrong type anywhere is the worker's bug, not ours.
    r.verdict = Verdict::kError;
    r.reason = std::string("malformed facts from the worker: ") + e.what();
  }
}

}  // namespace adaexplore
