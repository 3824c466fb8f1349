#pragma once

// The worker's facts as C++ values: what eval/classify.cc judges, decoded once from the `facts`
// of a result (eval/protocol.h checks their top level against FactFields()). The nested shapes
// (an error, the trials and their outputs, the timing, the kernel trace, the launches, the
// findings...) are declared here once, each struct listing its fields in a static Visit; the
// decoder, the schema export (tests/golden/protocol/fields.json, "nested") and the tests are
// made from those lists. python/adaexplore_worker/protocol/ declares the same shapes as
// TypedDicts, so a field renamed on either side fails the golden test of both.
//
// Rules of the nested shapes, on both sides: a field may be absent (the struct's default is
// then its value); a std::optional field (Python `T | None`) may also be null, which the worker
// sends for NaN and infinities; any other type is a ProtocolError naming the field
// ("facts.trials[0].outputs[1].values.violations"). Keys a shape does not declare ride along
// in the raw JSON, which results keep unchanged (EvalResult::facts): the verdict never reads
// them. Decoding copies; a Facts is a plain value, safe to read from any thread.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "workers/protocol.h"

namespace adaexplore {

// facts.error: an exception of the task, the candidate or the harness (load.describe).
struct FactError {
  std::string type = "error";  // The exception's class name.
  std::string message;
  std::string traceback;
  bool triton_compile = false;            // Raised by Triton's compiler.
  std::optional<std::string> cuda_error;  // The sticky CUDA error it poisoned the context with.
  bool out_of_memory = false;             // Device or host; PyTorch's NVML assert too (errors.py).

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("type", s.type);
    visit("message", s.message);
    visit("traceback", s.traceback);
    visit("triton_compile", s.triton_compile);
    visit("cuda_error", s.cuda_error);
    visit("out_of_memory", s.out_of_memory);
  }
};

// The element farthest outside the tolerance (check.compare).
struct WorstElement {
  int64_t flat_index = 0;
  std::string out_text = "?";  // Python's repr of the float, so NaN and Inf survive JSON.
  std::string ref_text = "?";

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("flat_index", s.flat_index);
    visit("out_text", s.out_text);
    visit("ref_text", s.ref_text);
  }
};

// An output's values against the reference's (check.compare); absent when its form was wrong.
struct OutputValues {
  bool passed = true;
  int64_t violations = 0;  // Elements outside the tolerance.
  int64_t numel = 0;
  int64_t nonfinite_out = 0;  // NaN/Inf where the reference has none.
  std::optional<double> max_abs_err;
  std::optional<double> max_rel_err;
  std::optional<double> ref_max_abs;  // max |ref| over its finite elements.
  std::optional<WorstElement> worst;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("passed", s.passed);
    visit("violations", s.violations);
    visit("numel", s.numel);
    visit("nonfinite_out", s.nonfinite_out);
    visit("max_abs_err", s.max_abs_err);
    visit("max_rel_err", s.max_rel_err);
    visit("ref_max_abs", s.ref_max_abs);
    visit("worst", s.worst);
  }
};

// An output's form (check.structure_facts): `problems` says in words what is wrong.
struct OutputForm {
  bool exact_tensor = true;  // A plain torch.Tensor, no subclass.
  bool zero_stride = false;  // An expanded view, not computed values.
  bool aliases_input = false;
  std::vector<std::string> problems;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("exact_tensor", s.exact_tensor);
    visit("zero_stride", s.zero_stride);
    visit("aliases_input", s.aliases_input);
    visit("problems", s.problems);
  }
};

struct TrialOutput {
  OutputForm form;
  OutputValues values;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("form", s.form);
    visit("values", s.values);
  }
};

// facts.trials[]: one correctness trial (trials.check_trials).
struct Trial {
  int64_t index = 0;
  std::string distribution = "?";  // "task", "normal", "task (fallback from normal)", ...
  bool integrity = false;          // An integrity trial, beyond the profile's own.
  bool passed = false;
  std::vector<std::string> problems;  // What failed before any output was checked.
  std::vector<TrialOutput> outputs;
  std::vector<int64_t> inputs_mutated;  // Indices of the inputs the candidate modified.

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("index", s.index);
    visit("distribution", s.distribution);
    visit("integrity", s.integrity);
    visit("passed", s.passed);
    visit("problems", s.problems);
    visit("outputs", s.outputs);
    visit("inputs_mutated", s.inputs_mutated);
  }
};

// facts.judge.trials[]: one trial's outputs as the judge found them.
struct JudgedTrial {
  int64_t index = 0;
  bool passed = false;
  std::vector<std::string> problems;  // Outputs missing, not tensors, of another shape.
  std::vector<OutputValues> outputs;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("index", s.index);
    visit("passed", s.passed);
    visit("problems", s.problems);
    visit("outputs", s.outputs);
  }
};

// facts.interface: how a FlashInfer candidate is called (python/.../kinds/flashinfer.py).
struct CandidateInterface {
  std::string entry_point;                 // The function: "run".
  bool destination_passing_style = false;  // It takes its outputs as arguments.

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("entry_point", s.entry_point);
    visit("destination_passing_style", s.destination_passing_style);
  }
};

// facts.determinism: a second run of the first trial's inputs.
struct Determinism {
  bool passed = true;
  bool special_mismatch = false;  // The runs disagree on NaN/Inf elements.
  std::optional<double> max_abs_diff;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("passed", s.passed);
    visit("special_mismatch", s.special_mismatch);
    visit("max_abs_diff", s.max_abs_diff);
  }
};

// facts.judge.reference_timing: the reference's timed runs made before any candidate was imported
// (clean_reference_timing), as the judge read them from the sealed reference file.
struct CleanReferenceTiming {
  std::vector<std::optional<double>> reference_ms;
  std::vector<std::optional<double>> reference_gpu_ms;
  std::vector<std::optional<double>> reference_operator_gpu_ms;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("reference_ms", s.reference_ms);
    visit("reference_gpu_ms", s.reference_gpu_ms);
    visit("reference_operator_gpu_ms", s.reference_operator_gpu_ms);
  }
};

// facts.judge: the candidate's outputs against the sealed references, compared by a process that
// never ran candidate code (python/.../judge.py); only the zygote adds it.
struct JudgeFacts {
  std::string references;  // "sealed"; "unsealed", "unreadable", "none": no judge could run.
  std::vector<JudgedTrial> trials;
  std::string stopped;  // What ended the outputs file early.
  std::string error;    // The judge failed: the harness's failure.
  std::optional<double> wall_s;
  std::vector<std::string> unconfined;  // Protections the judge could not take, with reasons.
  std::optional<CleanReferenceTiming> reference_timing;
  std::optional<Determinism> determinism;  // The rerun of trial 0 against its first run.

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("references", s.references);
    visit("trials", s.trials);
    visit("stopped", s.stopped);
    visit("error", s.error);
    visit("wall_s", s.wall_s);
    visit("unconfined", s.unconfined);
    visit("reference_timing", s.reference_timing);
    visit("determinism", s.determinism);
  }
};

struct ReferenceOutput {
  std::string dtype;  // "float32", "bfloat16", ...

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("dtype", s.dtype);
  }
};

// facts.reference: the reference's outputs, and how far its task-precision run is from exact.
struct ReferenceFacts {
  std::vector<ReferenceOutput> outputs;
  std::vector<std::optional<double>> self_error;  // One per trial.

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("outputs", s.outputs);
    visit("self_error", s.self_error);
  }
};

// facts.expert: the task's expert kernel, and whether it computes what the reference does.
struct Expert {
  std::optional<std::string> name;  // None: no expert kernel ran.
  bool agrees = false;
  std::optional<double> relative_error;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("name", s.name);
    visit("agrees", s.agrees);
    visit("relative_error", s.relative_error);
  }
};

// Another size set (the job's `sizes` option; python/.../evaluation/shrink.py, resize_task):
// whether the task's kind has such sizes, each size changed, from and to, and the names it lacks.
struct ResizeFacts {
  bool applies = false;
  std::map<std::string, std::vector<int64_t>> changed;
  std::vector<std::string> missing;
  // Module-level values computed again from the new sizes (`bias_shape`).
  std::vector<std::string> derived;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("applies", s.applies);
    visit("changed", s.changed);
    visit("missing", s.missing);
    visit("derived", s.derived);
  }
};

// One compute-sanitizer tool's run of the candidate (the job's `sanitize` option;
// python/.../evaluation/sanitizer.py): how it ended by the tool's exit status (clean, errors,
// target_failed, tool_failed, timed_out, signal, missing, unusable), the error count the tool's
// summaries gave, its first error records and the output's end. What each means: eval/sanitizer.h.
enum class SanitizerEnded {
  kClean,         // The call completed and the tool found nothing (exit status 0).
  kErrors,        // The tool found errors (its error exit status, 86).
  kTargetFailed,  // The kernel's call raised under the tool.
  kToolFailed,    // The tool itself failed: another exit status, or it could not start.
  kTimedOut,      // The run did not end within its limit.
  kSignal,        // A signal ended the tool.
  kMissing,       // No tool on the worker.
  kUnusable,      // The harness's own target failed under it: it cannot run CUDA here.
};

template <>
struct EnumTraits<SanitizerEnded> {
  static constexpr std::array<std::pair<SanitizerEnded, std::string_view>, 8> kNames = {{
      {SanitizerEnded::kClean, "clean"},
      {SanitizerEnded::kErrors, "errors"},
      {SanitizerEnded::kTargetFailed, "target_failed"},
      {SanitizerEnded::kToolFailed, "tool_failed"},
      {SanitizerEnded::kTimedOut, "timed_out"},
      {SanitizerEnded::kSignal, "signal"},
      {SanitizerEnded::kMissing, "missing"},
      {SanitizerEnded::kUnusable, "unusable"},
  }};
};

struct SanitizerRun {
  std::string tool;
  SanitizerEnded ended = SanitizerEnded::kToolFailed;
  std::optional<int64_t> exit_code;
  std::optional<int64_t> signal;
  double wall_s = 0;
  std::optional<int64_t> errors;
  std::vector<std::string> records;
  std::string tail;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("tool", s.tool);
    visit("ended", s.ended);
    visit("exit_code", s.exit_code);
    visit("signal", s.signal);
    visit("wall_s", s.wall_s);
    visit("errors", s.errors);
    visit("records", s.records);
    visit("tail", s.tail);
  }
};

// One of the `size_sets` option's sets, checked in the candidate's own job
// (python/.../evaluation/trials.py, check_size_sets): how the task was resized, why its reference
// could not be made there, whether the candidate's trials ran there (only once its own passed),
// those trials (the judge's indices follow the task's own), and what its call raised there.
struct SizeSetFacts {
  std::string name;
  ResizeFacts resize;
  std::string reference_error;
  bool ran = false;
  std::vector<Trial> trials;
  FactError error;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("name", s.name);
    visit("resize", s.resize);
    visit("reference_error", s.reference_error);
    visit("ran", s.ran);
    visit("trials", s.trials);
    visit("error", s.error);
  }
};

// A smoke test's smaller task (--shrink; python/adaexplore_worker/evaluation/shrink.py): the factor
// asked for, whether the task's kind allows it, and each size changed, from and to.
struct ShrinkFacts {
  int64_t factor = 1;
  bool applies = false;
  std::map<std::string, std::vector<int64_t>> changed;
  std::vector<std::string> derived;  // Module-level values computed again from the new sizes.

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("factor", s.factor);
    visit("applies", s.applies);
    visit("changed", s.changed);
    visit("derived", s.derived);
  }
};

// One kernel of a profiled call (a hardware profiler's figures as fractions of the device's
// peak, 0-1; eval/kernel_profile.h reads them).
struct ProfiledKernel {
  std::string name;
  double duration_us = 0;
  std::optional<double> dram_fraction;
  std::optional<double> sm_fraction;
  std::optional<double> achieved_occupancy;  // Measured by a hardware profiler.
  // What the launch's resources allow (eval/occupancy.h): an upper bound of the achieved one,
  // for a call profiled without hardware counters.
  std::optional<double> theoretical_occupancy;
  std::string occupancy_limiter;  // "registers", "shared_memory", "block_size", "grid" or "".
  std::optional<double> l2_hit_rate;
  bool own = true;  // The candidate's kernel, not one of PyTorch's.

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("name", s.name);
    visit("duration_us", s.duration_us);
    visit("dram_fraction", s.dram_fraction);
    visit("sm_fraction", s.sm_fraction);
    visit("achieved_occupancy", s.achieved_occupancy);
    visit("theoretical_occupancy", s.theoretical_occupancy);
    visit("occupancy_limiter", s.occupancy_limiter);
    visit("l2_hit_rate", s.l2_hit_rate);
    visit("own", s.own);
  }
};

// A correct candidate's call under a hardware profiler, separate from its timed runs: the tool,
// each kernel's figures and the call's time; or why there is none.
struct ProfileFacts {
  std::string tool;
  std::vector<ProfiledKernel> kernels;
  std::optional<double> call_us;
  std::string unavailable;  // Why no profile was taken ("" when one was).

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("tool", s.tool);
    visit("kernels", s.kernels);
    visit("call_us", s.call_us);
    visit("unavailable", s.unavailable);
  }
};

// What NVML said of the GPU at one moment (clocks.py); a figure it did not give is unset.
struct GpuReading {
  std::optional<double> sm_mhz;
  std::optional<double> mem_mhz;
  std::optional<double> temperature_c;
  std::optional<int64_t> pstate;
  // Clock event reasons ("sw_thermal", "hw_slowdown", ...); unset: NVML did not say.
  std::optional<std::vector<std::string>> throttle;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("sm_mhz", s.sm_mhz);
    visit("mem_mhz", s.mem_mhz);
    visit("temperature_c", s.temperature_c);
    visit("pstate", s.pstate);
    visit("throttle", s.throttle);
  }
};

// facts.timing.gpu_state: before the first timed run and after the last.
struct GpuState {
  std::optional<GpuReading> before;
  std::optional<GpuReading> after;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("before", s.before);
    visit("after", s.after);
  }
};

// facts.timing.gpu_setup: where the task's call makes its own inputs (a TritonBench-G test), its
// setup calls during the timed runs (setup_marks.py, gpu_timeline.py): whether torch's callables
// stayed as they were, and the setup kernels each side's kept runs launched (names, launches).
struct GpuSetup {
  bool intact = true;
  std::map<std::string, int64_t> candidate_kernels;
  std::map<std::string, int64_t> reference_kernels;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("intact", s.intact);
    visit("candidate_kernels", s.candidate_kernels);
    visit("reference_kernels", s.reference_kernels);
  }
};

// facts.timing.first_revalidation_failure (measure.py): the first timed run whose output did not
// match the reference's on the same inputs, counted from 0 after the warm-up; what was wrong
// ("values", "number of outputs changed", "output form changed"; unset: the outputs matched and
// the run changed its inputs); with "values", the elements outside the tolerance.
struct RevalidationFailure {
  int64_t run = 0;
  std::optional<std::string> problem;
  std::optional<int64_t> violations;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("run", s.run);
    visit("problem", s.problem);
    visit("violations", s.violations);
  }
};

// facts.timing (measure.py): samples in milliseconds, and what revalidating the timed runs found.
struct Timing {
  bool meaningful = false;  // Device events; a CPU's clock times nothing worth comparing.
  std::vector<std::optional<double>> candidate_ms;
  std::vector<std::optional<double>> candidate_wall_ms;
  // The host's own time in each call, from entering it to its return (timing.py).
  std::vector<std::optional<double>> candidate_host_ms;
  // The device-wide synchronise once the stream's end event was reached: an honest call leaves
  // the device idle by then (timing.py).
  std::vector<std::optional<double>> candidate_tail_ms;
  std::vector<std::optional<double>> reference_tail_ms;
  // The head start's time on the GPU over the flush and spin it was planned to take: work of the
  // call run on a side stream before its window slows it (timing.py).
  std::vector<std::optional<double>> candidate_head_over_ms;
  std::vector<std::optional<double>> reference_head_over_ms;
  std::vector<std::optional<double>> reference_ms;
  std::vector<std::optional<double>> compiled_reference_ms;
  std::vector<std::optional<double>> expert_ms;
  int64_t revalidated = 0;
  int64_t revalidation_failures = 0;
  int64_t inputs_mutated_runs = 0;
  std::optional<double> revalidated_relative_error;
  std::optional<RevalidationFailure> first_revalidation_failure;
  std::optional<GpuState> gpu_state;  // Unset: not on a GPU, or NVML could not be reached.
  // Runs whose host outlasted the head start (the GPU may have waited for the host inside the
  // window), those of them not kept, and the head start at the end (head_start.py). GPU only.
  int64_t host_late_runs = 0;
  int64_t host_late_dropped = 0;
  std::optional<double> head_start_us;
  // The GPU timeline (python/adaexplore_worker/timing/gpu_timeline.py): each kept run's GPU time,
  // from the first GPU work its call launched to its last (unset: the run launched none); the GPU
  // time and count of work launched outside every timed call by another thread; or why the
  // timeline gave none (then no series).
  std::vector<std::optional<double>> candidate_gpu_ms;
  std::vector<std::optional<double>> reference_gpu_ms;
  std::vector<std::optional<double>> compiled_reference_gpu_ms;
  std::vector<std::optional<double>> expert_gpu_ms;
  std::optional<double> gpu_outside_us;
  int64_t gpu_outside_records = 0;
  std::optional<std::string> gpu_timeline_lost;
  // Where the task's call makes its own inputs: each kept run's GPU time of the operator's work,
  // without the test's setup calls (gpu_timeline.py), and those calls.
  std::vector<std::optional<double>> candidate_operator_gpu_ms;
  std::vector<std::optional<double>> reference_operator_gpu_ms;
  std::optional<GpuSetup> gpu_setup;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("meaningful", s.meaningful);
    visit("candidate_gpu_ms", s.candidate_gpu_ms);
    visit("reference_gpu_ms", s.reference_gpu_ms);
    visit("compiled_reference_gpu_ms", s.compiled_reference_gpu_ms);
    visit("expert_gpu_ms", s.expert_gpu_ms);
    visit("gpu_outside_us", s.gpu_outside_us);
    visit("gpu_outside_records", s.gpu_outside_records);
    visit("gpu_timeline_lost", s.gpu_timeline_lost);
    visit("candidate_operator_gpu_ms", s.candidate_operator_gpu_ms);
    visit("reference_operator_gpu_ms", s.reference_operator_gpu_ms);
    visit("gpu_setup", s.gpu_setup);
    visit("host_late_runs", s.host_late_runs);
    visit("host_late_dropped", s.host_late_dropped);
    visit("head_start_us", s.head_start_us);
    visit("gpu_state", s.gpu_state);
    visit("candidate_ms", s.candidate_ms);
    visit("candidate_wall_ms", s.candidate_wall_ms);
    visit("candidate_host_ms", s.candidate_host_ms);
    visit("candidate_tail_ms", s.candidate_tail_ms);
    visit("reference_tail_ms", s.reference_tail_ms);
    visit("candidate_head_over_ms", s.candidate_head_over_ms);
    visit("reference_head_over_ms", s.reference_head_over_ms);
    visit("reference_ms", s.reference_ms);
    visit("compiled_reference_ms", s.compiled_reference_ms);
    visit("expert_ms", s.expert_ms);
    visit("revalidated", s.revalidated);
    visit("revalidation_failures", s.revalidation_failures);
    visit("inputs_mutated_runs", s.inputs_mutated_runs);
    visit("revalidated_relative_error", s.revalidated_relative_error);
    visit("first_revalidation_failure", s.first_revalidation_failure);
  }
};

struct TracedKernel {
  std::string name;
  std::string kind;  // "own", "pytorch" or "neutral" (trace.kind_of).
  double us = 0;     // Device microseconds over its launches.
  int64_t launches = 0;
  // Its longest launch's shape (trace.launch_shape); unset where CUPTI did not give it.
  std::optional<int64_t> registers;     // Per thread.
  std::optional<int64_t> shared_bytes;  // Per block.
  std::optional<int64_t> block_threads;
  std::optional<int64_t> grid_blocks;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("name", s.name);
    visit("kind", s.kind);
    visit("us", s.us);
    visit("launches", s.launches);
    visit("registers", s.registers);
    visit("shared_bytes", s.shared_bytes);
    visit("block_threads", s.block_threads);
    visit("grid_blocks", s.grid_blocks);
  }
};

// How many setup ranges the worker opened in a traced call, and how many the trace holds
// (setup_marks.py): a difference is a range the candidate forged. `intact`: torch.Tensor's
// attributes were the ones they were when the task loaded, all through the call.
struct SetupRanges {
  int64_t opened = 0;
  int64_t traced = 0;
  bool intact = true;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("opened", s.opened);
    visit("traced", s.traced);
    visit("intact", s.intact);
  }
};

// Kernel microseconds per kind (trace.kind_of).
struct KernelKinds {
  double own = 0;
  double pytorch = 0;
  double neutral = 0;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("own", s.own);
    visit("pytorch", s.pytorch);
    visit("neutral", s.neutral);
  }
};

// facts.kernel_trace: one call under the profiler (trace.py), device microseconds per kind.
struct KernelTrace {
  std::vector<TracedKernel> kernels;  // The longest first.
  std::optional<double> own_us;
  std::optional<double> pytorch_us;
  // Device microseconds of the call's work that ran outside its window on the caller's stream
  // (trace.py): work no timing of that stream sees. Unset: the trace found no window.
  std::optional<double> escaped_us;
  int64_t escaped_kernels = 0;
  // How long the device was busy with the call's work inside its window (the union of its
  // kernels', copies' and fills' intervals): the call's kernel time.
  std::optional<double> busy_us;
  // Where the task's call makes its own inputs (a TritonBench-G test): the kernel time of the
  // work not launched in the test's setup ranges, the operator's, and the ranges' count.
  std::optional<double> operator_us;
  std::optional<SetupRanges> setup_ranges;
  std::optional<KernelKinds> setup_kernel_us;    // Of the kernels launched in setup ranges.
  std::map<std::string, int64_t> setup_kernels;  // Their names, and launches of each.

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("kernels", s.kernels);
    visit("own_us", s.own_us);
    visit("pytorch_us", s.pytorch_us);
    visit("escaped_us", s.escaped_us);
    visit("escaped_kernels", s.escaped_kernels);
    visit("busy_us", s.busy_us);
    visit("operator_us", s.operator_us);
    visit("setup_ranges", s.setup_ranges);
    visit("setup_kernel_us", s.setup_kernel_us);
    visit("setup_kernels", s.setup_kernels);
  }
};

// How the interpreter configured an autotuned kernel (launches.py).
struct Autotune {
  std::string kernel;
  int64_t configs = 0;
  std::string chosen;
  std::string how;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("kernel", s.kernel);
    visit("configs", s.configs);
    visit("chosen", s.chosen);
    visit("how", s.how);
  }
};

// facts.launches: the candidate's own kernel launches per call (launches.py).
struct Launches {
  bool complete = false;  // False when an extension's registered ops may hide launches.
  int64_t calls = 0;
  int64_t calls_without_own = 0;
  std::optional<std::string> first_without_own;  // The first such call's phase.
  std::vector<Autotune> autotune;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("complete", s.complete);
    visit("calls", s.calls);
    visit("calls_without_own", s.calls_without_own);
    visit("first_without_own", s.first_without_own);
    visit("autotune", s.autotune);
  }
};

// A source rule broken (integrity.py), statically or at run time (audit.py).
struct Finding {
  std::string rule;  // Named in eval/checks.h.
  int64_t line = 0;  // In the candidate's source; 0 when unknown.
  std::string text;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("rule", s.rule);
    visit("line", s.line);
    visit("text", s.text);
  }
};

// facts.static: the findings in the candidate's source, before it is imported.
struct StaticFacts {
  std::vector<Finding> findings;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("findings", s.findings);
  }
};

// facts.swallowed[]: an exception the candidate's handler caught and went on from (fallback.py).
struct Swallowed {
  int64_t line = 0;
  std::string type;
  std::string message;
  std::string during;  // The call it happened in.
  int64_t count = 1;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("line", s.line);
    visit("type", s.type);
    visit("message", s.message);
    visit("during", s.during);
    visit("count", s.count);
  }
};

// facts.roofline: what the forward call moves (references.py).
struct Roofline {
  std::optional<double> io_bytes;  // Inputs read once plus outputs written once.
  std::optional<double> flops;     // The reference's matrix-unit flops (torch's flop counter).

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("io_bytes", s.io_bytes);
    visit("flops", s.flops);
  }
};

// The facts a verdict reads. Top-level fields are named as in FactFields(), which ValidateFacts
// checks first; a fact the worker did not send keeps its default here.
struct Facts {
  FactStatus status = FactStatus::kHarnessError;
  std::string phase = "unknown";
  std::string message;
  std::optional<int64_t> exit_code;
  std::optional<int64_t> signal;
  std::optional<double> memory_limit_mb;  // The limit a memory kill hit.
  std::optional<double> limit_s;          // The limit a timeout hit.
  FactError error;
  std::vector<Trial> trials;
  std::optional<JudgeFacts> judge;  // Absent: nothing ran to judge (or a worker before judges).
  std::optional<CandidateInterface> interface;  // FlashInfer candidates only.
  Determinism determinism;
  ReferenceFacts reference;
  std::string device_name;
  std::vector<std::string> flags_changed_by_import;
  std::vector<std::string> patched;
  std::vector<std::string> dispatcher_overrides;  // "aten::relu: CPU: registered at ..."
  std::vector<Finding> runtime_findings;
  std::vector<std::string> threads_left_running;
  int64_t os_threads_left_running = 0;
  std::map<std::string, bool> null_kernels;  // Which trivial kernel passes the task's trials.
  Roofline roofline;
  Expert expert;
  std::optional<ShrinkFacts> shrink;  // Absent: the task's own sizes.
  // A KernelBench task's module-level integers as it loaded them (before --shrink or `sizes`).
  std::map<std::string, int64_t> task_sizes;
  std::optional<ResizeFacts> resize;    // Absent: no `sizes` option.
  std::vector<SizeSetFacts> size_sets;  // Empty: no `size_sets` option.
  std::vector<SanitizerRun> sanitizer;  // Empty: no `sanitize` option.
  std::optional<ProfileFacts> profile;  // Absent: not profiled (docs/profiling.md).
  // Absent, or an empty object, when the worker timed nothing.
  std::optional<Timing> timing;
  std::optional<KernelTrace> kernel_trace;
  std::optional<KernelTrace> reference_trace;  // The reference's call, traced the same way.
  std::vector<Swallowed> swallowed;
  Launches launches;
  StaticFacts static_facts;
  std::optional<double> wall_s;
  std::string stdout_tail;
  std::string stderr_tail;

  template <typename Self, typename Visitor>
  static void Visit(Self& s, Visitor&& visit) {
    visit("phase", s.phase);
    visit("message", s.message);
    visit("exit_code", s.exit_code);
    visit("signal", s.signal);
    visit("memory_limit_mb", s.memory_limit_mb);
    visit("limit_s", s.limit_s);
    visit("error", s.error);
    visit("trials", s.trials);
    visit("judge", s.judge);
    visit("interface", s.interface);
    visit("determinism", s.determinism);
    visit("reference", s.reference);
    visit("device_name", s.device_name);
    visit("flags_changed_by_import", s.flags_changed_by_import);
    visit("patched", s.patched);
    visit("dispatcher_overrides", s.dispatcher_overrides);
    visit("runtime_findings", s.runtime_findings);
    visit("threads_left_running", s.threads_left_running);
    visit("os_threads_left_running", s.os_threads_left_running);
    visit("null_kernels", s.null_kernels);
    visit("roofline", s.roofline);
    visit("expert", s.expert);
    visit("shrink", s.shrink);
    visit("task_sizes", s.task_sizes);
    visit("resize", s.resize);
    visit("size_sets", s.size_sets);
    visit("sanitizer", s.sanitizer);
    visit("profile", s.profile);
    visit("timing", s.timing);
    visit("kernel_trace", s.kernel_trace);
    visit("reference_trace", s.reference_trace);
    visit("swallowed", s.swallowed);
    visit("launches", s.launches);
    visit("static", s.static_facts);
    visit("wall_s", s.wall_s);
    visit("stdout", s.stdout_tail);
    visit("stderr", s.stderr_tail);
  }
};

// Decodes `facts` (a result's facts object): ValidateFacts first, then every field Facts
// declares. A ProtocolError names the first field of the wrong shape ("facts.trials[0].passed").
Result<Facts> DecodeFacts(const nlohmann::json& facts);

// The nested shapes' fields and JSON types by path ("facts.trials[]", "facts.trials[].outputs[]"),
// in the words of FactFields(): what python/.../protocol.py's schema_fields()["nested"] gives.
nlohmann::json NestedFactFields();

// The JSON kind of each top-level field Facts declares, by name, in the words of FactFields():
// for the test that keeps the two declarations equal.
std::vector<std::pair<std::string, std::string>> TEST_FactsTopLevelKinds();

}  // namespace adaexplore
