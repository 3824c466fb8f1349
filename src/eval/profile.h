#pragma once

// Evaluation profiles: every knob of correctness checking and timing, as data. The C++ side owns
// these decisions; the worker receives them as the job's "options" and carries them out.
//
//   strict (default)  fp64 reference, 5 trials over varied input distributions, the scaled
//                     tolerance, determinism re-run, poisoned memory, fresh inputs and an
//                     interleaved reference on every timed run, median; 20 to 100 timed runs,
//                     stopping once both medians are known to 0.5% or after 1 s of timed runs;
//                     the speedup from the GPU's own time of each run (CUPTI), the call's beside.
//   paper             the AdaExplore reference release's figures: 5 trials on the task's own
//                     inputs (seeds from 42), torch.allclose at atol = rtol = 5e-2, 10 warm-up +
//                     100 timed runs, trimmed mean, eager baseline timed on its own; with every
//                     integrity check that leaves an honest kernel's figures unchanged (timed
//                     outputs re-validated on fresh inputs, poisoned memory, the kernel trace and
//                     launch counts, the source rules, and one integrity trial each on normal
//                     and uniform [-1, 1) inputs at the same tolerance).
//   reference         the reference release's check exactly, for reproducing its numbers: no
//                     integrity check beyond it. Gameable, and says so when used.
//   kernelbench       KernelBench main's check (allclose 1e-4 in fp32, 1e-2 in fp16/bf16; 3
//                     warm-ups, 100 runs on one input set, L2 flushed, the mean), for comparing
//                     with KernelBench's own numbers. Gameable as KernelBench is, and says so.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "eval/checks.h"
#include "eval/verdict.h"
#include "task/task_kind.h"
#include "workers/protocol.h"

namespace adaexplore {

// Whether PyTorch's compute kernels may do a candidate's work (see EvalProfile).
enum class PytorchCompute { kAllowed, kForbidden, kUnrestricted };

template <>
struct EnumTraits<PytorchCompute> {
  static constexpr std::array<std::pair<PytorchCompute, std::string_view>, 3> kNames = {{
      {PytorchCompute::kAllowed, "allowed"},
      {PytorchCompute::kForbidden, "forbidden"},
      {PytorchCompute::kUnrestricted, "unrestricted"},
  }};
};

struct EvalProfile {
  std::string name = "strict";
  // What the worker carries out: every option of a job (workers/protocol.h), with the strict
  // profile's values as JobOptions' defaults. The per-job fields (device, baseline, exclusive,
  // seed, revalidate_atol/rtol) are filled in by ToJobOptions.
  JobOptions job;
  std::optional<uint64_t> seed;     // Unset: derived from the job's content hash.
  double revalidate_factor = 2;     // Tolerance multiplier for the checks of timed outputs: the
                                    // reference there is the task-precision one, not float64.
  bool check_stream_escape = true;  // Reject when most of a call's wall time (device-wide
                                    // sync included) is invisible to its stream's events.
  Statistic statistic = Statistic::kMedian;
  // A speedup whose uncertainty (the candidate's and the reference's median half-widths, the
  // noise figure of verdict.h, summed) is over this share is withheld: the timing did not
  // settle, and the result says so instead of giving a number. 0: always given (the profiles
  // that reproduce a harness's fixed count, as those harnesses do).
  double settle_limit = 0.05;
  // Which time the speedup compares (verdict.h). Strict: the GPU's own time of every timed run
  // (the call's events beside it), which settles where a microsecond kernel's call, mostly
  // Python's launching, does not; the profiles that reproduce a harness: the call, what those
  // harnesses measure. The kernel scope (one traced call per side) is reported beside either.
  TimingScope speedup_scope = TimingScope::kGpu;
  // The tolerance follows the precision (StrictTolerance: 1e-4 in fp32, 1e-2 in fp16/bf16);
  // off, the profile's one tolerance holds in every precision (the release's 5e-2).
  bool tolerance_by_precision = true;
  bool reject_flag_changes = true;  // Reject candidates that change precision flags.
  // Findings that reject, by rule name (eval/checks.h).
  std::vector<std::string> reject_static = DefaultRejectedRules();  // eval/checks.h
  bool reject_swallowed = true;             // An exception swallowed during a call (a fallback).
  bool check_own_launches = true;           // Every call launches a kernel of the candidate's own.
  bool reject_threads_left_running = true;  // Python threads still alive after forward.
  bool reject_patching = true;  // Replaced timers, torch functions or harness functions.
  bool speed_of_light = true;   // Reject times below the task's roofline on this device.
  // The kernel trace (job.kernel_trace, GPU) is one call under the profiler. The candidate's own
  // kernels must run (not only PyTorch's) unless pytorch_compute is unrestricted; when it is
  // forbidden, PyTorch's compute kernels (aten, cuBLAS, cuDNN) may take at most
  // pytorch_compute_share of the kernel time.
  PytorchCompute pytorch_compute = PytorchCompute::kAllowed;
  double pytorch_compute_share = 0.1;
  // Check a correct KernelBench kernel again at other size sets of the task (eval/size_checks.h):
  // one wrong there is marked correct at the task's sizes only. Off in the profiles that
  // reproduce a harness.
  bool size_checks = true;
  // Run compute-sanitizer on every correct kernel (eval --sanitize; eval/sanitizer.h): each of
  // sanitizer_tools runs its call once, within sanitizer_timeout_s. A search runs it on its new
  // bests instead (search/run_spec.h). Not in the results' key: the runs are cached on their own.
  bool sanitize = false;
  std::string sanitizer_tools = "memcheck,racecheck";
  double sanitizer_timeout_s = 300;
  double timeout_s = 180;      // Per candidate, compile included.
  double memory_limit_mb = 0;  // Host memory of one evaluation; 0: chosen at start.
  // Each candidate runs in its own sandbox (namespaces, a mount view, no capabilities, Landlock,
  // seccomp: docs/harness.md), each protection where the machine allows it. Off: candidates run
  // as the user, with what the user can reach.
  bool sandbox = true;
  // Refuse to evaluate (the worker fails to start, a job is not run) unless every protection of
  // the sandbox is in force and verified by the worker's self-test.
  bool require_sandbox = true;

  // The options sent to the worker, for `device` and a task of `kind`; seed is 0 when the
  // profile leaves it unset (the evaluator derives one per job). A FlashInfer-Trace or
  // TritonBench-G task is checked as its own benchmark checks it: against its reference in the
  // task's own dtypes, on the inputs the task makes (no other input distributions), within
  // kBenchmarkTolerance elementwise (FlashInfer-Bench's atol = rtol = 1e-2) or the profile's
  // tolerance where that is looser.
  JobOptions ToJobOptions(DeviceKind device = DeviceKind::kCpu,
                          TaskKind kind = TaskKind::kKernelBench) const;
  // What decides a result (for the cache key): everything but timeouts and limits.
  nlohmann::json Fingerprint() const;
};

// Turns `options` into those of a job that only checks (the other size sets, compute-sanitizer's
// runs): nothing timed, traced or compared with a baseline, no self-test of the task.
void CheckOnly(JobOptions& options);

EvalProfile StrictProfile();
EvalProfile PaperProfile();
EvalProfile ReferenceProfile();
EvalProfile KernelBenchProfile();

// Turns every integrity check that cannot change an honest kernel's figures on or off (the
// determinism rerun, poisoning, re-validation of timed outputs, the kernel trace and launch
// counts, the source rules, patching, threads, flags, side streams, fallbacks, speed of light,
// integrity trials on the input distributions the profile's own trials leave out):
// the difference between paper and reference, declared once.
void SetIntegrityChecks(EvalProfile& profile, bool on);

// The named profiles, strict first (described at the top of this file), and what a user must
// know when using one.
struct ProfileInfo {
  std::string_view name;
  std::string_view caveat;  // Empty, or said (as a warning) by every command that uses it.
  EvalProfile (*make)();
};
const std::vector<ProfileInfo>& Profiles();
const std::vector<std::string_view>& ProfileNames();
// The caveat of the profile named `name` ("" for none, or for a name not declared).
std::string_view ProfileCaveat(std::string_view name);
Result<EvalProfile> ProfileByName(std::string_view name);

// The strict profile's tolerance (atol = rtol, on its scaled criterion) for `precision`: what
// computing at that precision achieves; a looser profile reports errors above it (findings).
double StrictTolerance(Precision precision);

// The tolerance of FlashInfer-Trace and TritonBench-G tasks (EvalProfile::ToJobOptions).
inline constexpr double kBenchmarkTolerance = 1e-2;

// Sets the precision and, where the profile's tolerance follows it (tolerance_by_precision:
// strict, kernelbench), the tolerances for it; paper and reference keep 5e-2 throughout.
void SetPrecision(EvalProfile& profile, Precision precision);

}  // namespace adaexplore
