#pragma once

// Evaluation profiles: every knob of correctness checking and timing, as data. The C++ side owns
// these decisions; the worker receives them as the job's "options" and carries them out.
//
//   strict (default)  fp64 reference, 5 trials over varied input distributions, the scaled
//                     tolerance, determinism re-run, poisoned memory, fresh inputs and an
//                     interleaved reference on every timed run, median.
//   paper             the AdaExplore reference release: 5 trials on the task's own inputs
//                     (seeds from 42), torch.allclose at atol = rtol = 5e-2, 10 warm-up + 100
//                     timed runs on one input set, trimmed mean, eager baseline timed after.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "eval/checks.h"
#include "eval/protocol.h"

namespace adaexplore {

struct EvalProfile {
  std::string name = "strict";
  std::string precision = "fp32";     // fp32 | bf16 | fp16: dtype of weights and float inputs.
  bool allow_tf32 = false;            // TF32 off unless a task says otherwise.
  int trials = 5;                     // Correctness trials, each with its own seed.
  std::string seed_mode = "derived";  // "derived": from `seed`; "paper": the release's scheme.
  std::optional<uint64_t> seed;       // Unset: derived from the job's content hash.
  uint64_t init_seed = 42;            // torch.manual_seed before building Model and ModelNew.
  std::vector<std::string> distributions = {"task", "normal", "uniform_pm1", "scaled", "heavy"};
  std::string reference_precision = "fp64";  // "fp64" or "task".
  double reference_gpu_fraction = 0.25;      // Free device memory the references may keep there.
  std::string criterion = "scaled";          // "scaled" or "allclose" (see python/.../check.py).
  double atol = 1e-4;
  double rtol = 1e-4;
  bool determinism_check = true;
  bool poison_memory = true;
  bool stop_at_first_failure = true;
  int warmup_runs = 10;
  int timed_runs = 100;
  bool fresh_inputs_per_run = true;  // New input buffers and values for every timed run.
  bool interleave_reference = true;  // Reference timed beside the candidate, random order.
  bool revalidate_timed = true;      // Check every timed output against the reference.
  double revalidate_factor = 2;      // Tolerance multiplier for those checks: the reference
                                     // there is the task-precision one, not float64.
  bool l2_flush = true;
  bool check_stream_escape = true;     // Reject when most of a call's wall time (device-wide
                                       // sync included) is invisible to its stream's events.
  bool compile_baseline = false;       // Also time torch.compile(reference).
  std::string generate_on = "device";  // "device" or "cpu" (bit-identical to KernelBench).
  std::string statistic = "median";    // "median" or "trimmed_mean".
  bool reject_flag_changes = true;     // Reject candidates that change precision flags.
  // Findings that reject, by rule name (eval/checks.h).
  std::vector<std::string> reject_static = IntegrityRuleNames();  // Every rule (eval/checks.h).
  bool reject_threads_left_running = true;  // Python threads still alive after forward.
  bool reject_patching = true;  // Replaced timers, torch functions or harness functions.
  bool speed_of_light = true;   // Reject times below the task's roofline on this device.
  bool null_selftest = true;    // Flag tasks that trivial outputs pass.
  // Kernel trace (GPU): one call under the profiler. The candidate's own kernels must run (not
  // only PyTorch's) unless pytorch_compute is "unrestricted"; with "forbidden", PyTorch's compute
  // kernels (aten, cuBLAS, cuDNN) may take at most pytorch_compute_share of the kernel time.
  bool kernel_trace = true;
  std::string pytorch_compute = "allowed";  // "allowed", "forbidden" or "unrestricted".
  double pytorch_compute_share = 0.1;
  double timeout_s = 180;      // Per candidate, compile included.
  double memory_limit_mb = 0;  // Host memory of one evaluation; 0: chosen at start.
  bool measure = true;         // Time correct candidates.

  // The options sent to the worker, for `device`; seed is 0 when the profile leaves it unset
  // (the evaluator derives one per job).
  JobOptions ToJobOptions(std::string_view device = "cpu") const;
  // What decides a result (for the cache key): everything but timeouts and limits.
  nlohmann::json Fingerprint() const;
};

EvalProfile StrictProfile();
EvalProfile PaperProfile();
// The names ProfileByName knows, strict first.
const std::vector<std::string_view>& ProfileNames();
Result<EvalProfile> ProfileByName(std::string_view name);

// Sets the tolerances the profile uses for `precision` (strict: 1e-4 for fp32, 1e-2 for
// bf16/fp16; paper: 5e-2 throughout).
Status SetPrecision(EvalProfile& profile, std::string_view precision);

// Sets whether PyTorch's compute kernels may do the work: "allowed" (beside the candidate's own
// kernels), "forbidden" (at most pytorch_compute_share of the kernel time) or "unrestricted"
// (a call need not launch any kernel of the candidate's: pure PyTorch rewrites count).
Status SetPytorchCompute(EvalProfile& profile, std::string_view policy);

}  // namespace adaexplore
