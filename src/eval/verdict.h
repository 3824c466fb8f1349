#pragma once

// The verdict on one candidate, and the figures behind it. A verdict is data, not an error: a
// kernel that does not compile is a normal outcome of the search and is stored like any other.

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/enum_json.h"
#include "core/enum_names.h"

namespace adaexplore {

enum class Verdict {
  kCorrect,       // Matches the reference on every trial; timed.
  kIncorrect,     // Ran, but an output is wrong (values, shape, dtype, NaN, nondeterminism).
  kRejected,      // An integrity check failed (aliasing, mutated inputs, forged or replayed
                  // results, changed precision flags...); the reason names the check.
  kCompileError,  // Does not import, defines no ModelNew, or its kernel does not compile.
  kRuntimeError,  // Raised while building or running (incl. CUDA faults and out of memory).
  kTimeout,       // Did not finish in time; its process group was killed.
  kCrash,         // Its process died (signal, os._exit, killed its worker).
  kTaskError,     // The task itself is broken; no candidate can be judged against it.
  kError,         // The harness could not evaluate it (no worker, internal error). Not cached.
};

std::string_view VerdictName(Verdict verdict);
std::optional<Verdict> ParseVerdict(std::string_view name);
// Every verdict, in declaration order.
std::vector<Verdict> AllVerdicts();

// What one step of the search ended with: the verdict on its kernel, or no kernel at all (the
// LLM's reply held none, its edits did not apply, the call failed). The run database, the
// reports and the prompts store and show its name: a verdict's, or "no_kernel".
struct StepVerdict {
  std::optional<Verdict> kernel;  // Unset: the step yielded no kernel.

  static StepVerdict NoKernel() { return {}; }
  static StepVerdict Of(Verdict verdict) { return {.kernel = verdict}; }
  // A stored name; nullopt when it is neither a verdict nor "no_kernel".
  static std::optional<StepVerdict> Parse(std::string_view name);

  bool has_kernel() const { return kernel.has_value(); }
  bool is(Verdict verdict) const { return kernel == verdict; }
  std::string_view name() const;
};

// Which figure of a series of timed runs a speedup compares.
enum class Statistic { kMedian, kTrimmedMean, kMean };

template <>
struct EnumTraits<Statistic> {
  static constexpr std::array<std::pair<Statistic, std::string_view>, 3> kNames = {{
      {Statistic::kMedian, "median"},
      {Statistic::kTrimmedMean, "trimmed_mean"},
      {Statistic::kMean, "mean"},
  }};
};

// What a speedup compares. kCall: the timed runs, events around the call on the caller's stream
// (the host's launching included where the stream waits for it), as KernelBench and the
// reference release measure; kKernel: the device time of the work the call launched, from one
// traced call of each side (trace.py's busy_us), the host's part left out; kGpu: the GPU's own
// timeline of every timed run (CUPTI's activity records, python/adaexplore_worker/
// gpu_timeline.py): from the first GPU work the call launched (on any thread, any stream) to
// its last, gaps the host left between launches included.
enum class TimingScope { kCall, kKernel, kGpu };

template <>
struct EnumTraits<TimingScope> {
  static constexpr std::array<std::pair<TimingScope, std::string_view>, 3> kNames = {{
      {TimingScope::kCall, "call"},
      {TimingScope::kGpu, "gpu"},
      {TimingScope::kKernel, "kernel"},
  }};
};

// A statistic in words, for people and prompts: "median", "trimmed mean", "mean".
std::string_view StatisticWords(Statistic statistic);

// Summary statistics of one series of timed runs, in milliseconds.
struct TimingStats {
  int runs = 0;
  double median_ms = 0;
  double trimmed_mean_ms = 0;  // Mean after dropping 5% at each end (the reference's statistic).
  double mean_ms = 0;
  double std_ms = 0;
  double cv = 0;  // std / mean.
  double min_ms = 0;
  double max_ms = 0;
  // The noise figure: half the width of the median's distribution-free 95% interval (order
  // statistics at n/2 -+ 1.96 sqrt(n)/2) over the median, what the adaptive timing stops on
  // (python/adaexplore_worker/timing/stopping.py); infinite below 2 runs (null in JSON).
  double median_halfwidth = std::numeric_limits<double>::infinity();

  // The figure `statistic` names.
  double Of(Statistic statistic) const {
    switch (statistic) {
      case Statistic::kTrimmedMean:
        return trimmed_mean_ms;
      case Statistic::kMean:
        return mean_ms;
      case Statistic::kMedian:
        break;
    }
    return median_ms;
  }
};

// Computes the statistics of `samples_ms`; an empty series gives runs == 0.
TimingStats ComputeTimingStats(std::vector<double> samples_ms);

nlohmann::json ToJson(const TimingStats& stats);
TimingStats TimingStatsFromJson(const nlohmann::json& j);

// How a correct kernel fared at one of the task's other size sets (eval/size_checks.h).
enum class SizeOutcome {
  kPassed,         // Every trial at these sizes matched the reference.
  kWrong,          // Wrong there: an output, an error, a crash; `detail` says which.
  kNotApplicable,  // The task's own reference cannot run at these sizes (its asserts).
  kNotRun,         // Not judged: the harness, a time or memory limit, a rejection.
};

template <>
struct EnumTraits<SizeOutcome> {
  static constexpr std::array<std::pair<SizeOutcome, std::string_view>, 4> kNames = {{
      {SizeOutcome::kPassed, "passed"},
      {SizeOutcome::kWrong, "wrong"},
      {SizeOutcome::kNotApplicable, "not_applicable"},
      {SizeOutcome::kNotRun, "not_run"},
  }};
};

struct SizeCheck {
  std::string set;                       // "smaller", "uneven" (eval/size_variants.h).
  std::map<std::string, int64_t> sizes;  // Each size the set changes, as it set them.
  SizeOutcome outcome = SizeOutcome::kNotRun;
  std::string detail;  // Unless passed: the check's verdict and reason there.
  double wall_s = 0;   // The check's evaluation child, waits for a slot or the GPU included.
  double busy_s = 0;   // Its phases' own time (loading, references, import, checks).
  // Checked in the candidate's own job (its size_sets option), not a job of its own: wall_s is 0
  // and busy_s its share of that job's size_sets phase (its references came with the task's).
  bool in_job = false;
};

nlohmann::json ToJson(const SizeCheck& check);
SizeCheck SizeCheckFromJson(const nlohmann::json& j);

// How one compute-sanitizer tool's run of a kernel ended (eval/sanitizer.h).
enum class SanitizerOutcome {
  kClean,   // The tool ran the kernel's call and found nothing.
  kErrors,  // The tool found errors: an out-of-bounds access, a race, ...
  kFailed,  // The call did not complete under the tool, or the tool failed or ran out of time.
  kNotRun,  // Not run: no tool on the worker, or the harness could not run it.
};

template <>
struct EnumTraits<SanitizerOutcome> {
  static constexpr std::array<std::pair<SanitizerOutcome, std::string_view>, 4> kNames = {{
      {SanitizerOutcome::kClean, "clean"},
      {SanitizerOutcome::kErrors, "errors"},
      {SanitizerOutcome::kFailed, "failed"},
      {SanitizerOutcome::kNotRun, "not_run"},
  }};
};

struct SanitizerCheck {
  std::string tool;  // memcheck, racecheck, synccheck, initcheck.
  SanitizerOutcome outcome = SanitizerOutcome::kNotRun;
  std::optional<int> errors;  // The count the tool's summary gave, when it gave one.
  std::string detail;         // Its first error records, or why it failed or did not run.
  double wall_s = 0;          // The tool's run, the kernel's call under it included.
};

nlohmann::json ToJson(const SanitizerCheck& check);
SanitizerCheck SanitizerCheckFromJson(const nlohmann::json& j);

struct EvalResult {
  std::string task;  // Task name (file stem).
  std::string task_path;
  std::string kernel_path;
  Verdict verdict = Verdict::kError;
  std::string reason;      // One line, in words a user can act on.
  std::string check;       // The integrity check (eval/checks.h) behind a rejection; else empty.
  std::string error_text;  // Full traceback or detail, for people and the skill memory.
  std::optional<double> speedup;           // Reference / candidate on the profile's statistic.
  std::optional<double> speedup_compiled;  // torch.compile'd reference / candidate, when timed.
  // The task's expert kernel / candidate, when the task has one (FlashInfer's own kernel for a
  // FlashInfer-Trace definition), it ran, and it agreed with the reference.
  std::optional<double> speedup_expert;
  std::string expert;  // That kernel's name ("flashinfer.norm.rmsnorm"), whenever it was timed.
  std::optional<TimingStats> candidate_timing;
  std::optional<TimingStats> reference_timing;
  std::optional<TimingStats> compiled_reference_timing;
  std::optional<TimingStats> expert_timing;
  bool timing_meaningful = false;  // False on the CPU (Triton's interpreter).
  // Above 1: a smoke test on the task's sizes divided by this (--shrink), not the task's own;
  // `shrunk` names each size changed, "batch_size 4096 -> 256".
  int shrink = 1;
  std::vector<std::string> shrunk;
  // The other size sets a correct kernel was checked at (empty: none were; eval/size_checks.h).
  // One wrong there marks the kernel correct at the task's sizes only: its verdict and speedup
  // stand, a finding names the sizes, and a search does not take it as its best by default.
  std::vector<SizeCheck> size_checks;
  // compute-sanitizer's runs of a correct kernel (empty: none; eval/sanitizer.h). One with
  // errors keeps its verdict and speedup, adds a finding, and keeps a search from taking it as
  // its best.
  std::vector<SanitizerCheck> sanitizer;
  // The speedup's uncertainty was over the profile's settle_limit: no speedup is given.
  bool timing_unsettled = false;
  // Every correctness trial ran and passed. True for a correct kernel, and for one stopped
  // later (a timeout while timing): a slow correct kernel, told from one that never finished.
  bool passed_trials = false;
  std::optional<double> max_abs_err;  // Worst over the trials that ran.
  std::optional<double> max_rel_err;
  // Trivial outputs ("zeros", "constant", "identity", "input_mean") that pass this task's
  // checks: when any does, a correct verdict on the task proves little.
  std::vector<std::string> degenerate;
  // What the result says beyond its verdict: source findings that did not reject (a try/except
  // that never swallowed anything), how an autotuned kernel was configured (in the interpreter, or
  // shared).
  std::vector<std::string> findings;
  // The fastest any kernel could run this task on this device (bytes over copy bandwidth,
  // matrix flops over the bf16 rate, whichever is larger), when the ceilings are known.
  std::optional<double> speed_of_light_ms;
  // The speed of light over the kernel's time (its kernel time where traced, else the call's):
  // how close it is to the fastest any kernel could be; unset without a bound or a GPU timing.
  std::optional<double> sol_fraction;
  // A hardware profile's verdict on the call (eval/kernel_profile.h): the bottleneck's name and
  // the line prompts and reports show; or, without a profile, why there is none.
  std::string bottleneck;
  std::string profile_text;
  std::string profile_unavailable;
  std::optional<Statistic> statistic;      // What the speedup compares; unset before timing.
  TimingScope scope = TimingScope::kCall;  // Which time `speedup` compares.
  // The GPU scope's series (the timed runs' GPU times), where the GPU timeline was recorded.
  std::optional<TimingStats> candidate_gpu_timing;
  std::optional<TimingStats> reference_gpu_timing;
  // The call scope's speedup where `speedup` compares another time: the call's events, the
  // host's launching included where the stream waited for it (the second figure beside the GPU's).
  std::optional<double> speedup_call;
  // The kernel scope, whatever the profile's: each side's kernel time in one traced call (GPU).
  std::optional<double> speedup_kernel;
  std::optional<double> candidate_kernel_us;
  std::optional<double> reference_kernel_us;
  std::string profile;
  std::string device;
  std::string worker;  // Which worker measured it: "gpu1", or "host/gpu1" through NATS.
  std::string cache_key;
  bool cached = false;
  double wall_s = 0;        // Wall time of the evaluation child.
  std::string stdout_tail;  // What the candidate printed (captured, never parsed).
  std::string stderr_tail;
  nlohmann::json facts;  // Everything the worker reported, for the run database.
};

nlohmann::json ToJson(const EvalResult& result);
EvalResult EvalResultFromJson(const nlohmann::json& j);

}  // namespace adaexplore
