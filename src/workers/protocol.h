#pragma once

// The worker protocol as C++ values: the typed schema of what we send a worker (EvalJob and its
// JobOptions) and of what it reports (FactStatus, the declared facts), and the decoding of the
// JSON lines a worker sends. The state machine and the message shapes are drawn in
// python/adaexplore_worker/process/zygote.py and docs/protocol.md.
//
// The schema is declared once per side: here, and in python/adaexplore_worker/protocol/. The
// golden files in tests/golden/protocol are read by the tests of both sides, so the declarations
// cannot drift apart; a change to either is a new kProtocolVersion. Nothing from a worker is
// trusted: every field is checked, and a malformed line is an error value, never a crash.

#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/enum_json.h"
#include "core/enum_names.h"
#include "core/result.h"
#include "task/source_file.h"
#include "task/task_kind.h"

namespace adaexplore {

inline constexpr int kProtocolVersion = 5;

// The job options that take one of a few values, each sent as its name.
enum class DeviceKind { kCuda, kCpu };
enum class Precision { kFp32, kBf16, kFp16 };  // dtype of weights and float inputs.
enum class SeedMode { kDerived, kPaper };      // Trial seeds from `seed`, or the release's scheme.
enum class ReferencePrecision { kFp64, kTask };  // What the reference computes in.
enum class Criterion { kScaled, kAllclose };     // python/adaexplore_worker/correctness/check.py.
enum class GenerateOn { kDevice, kCpu };         // Where inputs are drawn (cpu: as KernelBench).

template <>
struct EnumTraits<DeviceKind> {
  static constexpr std::array<std::pair<DeviceKind, std::string_view>, 2> kNames = {{
      {DeviceKind::kCuda, "cuda"},
      {DeviceKind::kCpu, "cpu"},
  }};
};
template <>
struct EnumTraits<Precision> {
  static constexpr std::array<std::pair<Precision, std::string_view>, 3> kNames = {{
      {Precision::kFp32, "fp32"},
      {Precision::kBf16, "bf16"},
      {Precision::kFp16, "fp16"},
  }};
};
template <>
struct EnumTraits<SeedMode> {
  static constexpr std::array<std::pair<SeedMode, std::string_view>, 2> kNames = {{
      {SeedMode::kDerived, "derived"},
      {SeedMode::kPaper, "paper"},
  }};
};
template <>
struct EnumTraits<ReferencePrecision> {
  static constexpr std::array<std::pair<ReferencePrecision, std::string_view>, 2> kNames = {{
      {ReferencePrecision::kFp64, "fp64"},
      {ReferencePrecision::kTask, "task"},
  }};
};
template <>
struct EnumTraits<Criterion> {
  static constexpr std::array<std::pair<Criterion, std::string_view>, 2> kNames = {{
      {Criterion::kScaled, "scaled"},
      {Criterion::kAllclose, "allclose"},
  }};
};
template <>
struct EnumTraits<GenerateOn> {
  static constexpr std::array<std::pair<GenerateOn, std::string_view>, 2> kNames = {{
      {GenerateOn::kDevice, "device"},
      {GenerateOn::kCpu, "cpu"},
  }};
};

// How far an evaluation got: facts.status. A verdict is decided from it and the other facts
// (eval/classify.cc); the worker decides nothing.
enum class FactStatus {
  kOk,  // Every trial it was given ran; the trials say whether it was right.
  kTaskError,
  kImportError,
  kInitError,
  kForwardError,
  kInputsChanged,
  kTimeout,
  kMemoryLimit,
  kCrash,
  kProtocolViolation,
  kCancelled,
  kHarnessError,
};

std::string_view FactStatusName(FactStatus status);
std::optional<FactStatus> ParseFactStatus(std::string_view name);
// Every status, in declaration order (for the schema's own tests and docs).
std::vector<FactStatus> AllFactStatuses();

// facts.status of `facts`; a ProtocolError when it is missing or not a declared status.
Result<FactStatus> StatusOf(const nlohmann::json& facts);

// One of a KernelBench task's other size sets checked in the candidate's own job (size_sets):
// the module-level integers it sets, and how many of the profile's first trials run at it.
struct SizeSet {
  std::string name;
  std::map<std::string, int64_t> sizes;
  int trials = 0;

  bool operator==(const SizeSet&) const = default;
};

template <typename Set, typename Visitor>
void VisitSizeSet(Set& s, Visitor&& visit) {
  visit("name", s.name);
  visit("sizes", s.sizes);
  visit("trials", s.trials);
}

// How to evaluate one job: the profile (eval/profile.h) as the worker receives it. Every field is
// sent, and the worker refuses a job that lacks one: it has no defaults of its own.
struct JobOptions {
  DeviceKind device = DeviceKind::kCpu;
  bool baseline = false;   // Time the task's own Model only; no candidate.
  bool exclusive = false;  // Hold the GPU alone in every phase (a retry after OOM).
  Precision precision = Precision::kFp32;
  bool allow_tf32 = false;  // TF32 off unless a task says otherwise.
  int trials = 5;           // Correctness trials, each with its own seed.
  SeedMode seed_mode = SeedMode::kDerived;
  uint64_t seed = 0;
  uint64_t init_seed = 42;  // torch.manual_seed before building Model and ModelNew.
  std::vector<std::string> distributions = {"task", "normal", "uniform_pm1", "scaled", "heavy"};
  // One integrity trial per entry after the profile's own trials, at the same tolerance, on
  // inputs beyond the task's own: a profile whose trials all use the task's inputs still sees a
  // kernel that is right only for their range (a copy for ReLU on U[0,1) inputs).
  std::vector<std::string> integrity_distributions;
  ReferencePrecision reference_precision = ReferencePrecision::kFp64;
  double reference_gpu_fraction = 0.25;  // Free device memory references may keep there.
  // Seconds the float64 reference may take over all trials, judged from the first trial's
  // call: past it, the whole evaluation keeps the task precision, with a note; 0: no bound.
  double fp64_budget_s = 60;
  Criterion criterion = Criterion::kScaled;
  double atol = 1e-4;
  double rtol = 1e-4;
  bool determinism_check = true;
  bool poison_memory = true;
  bool stop_at_first_failure = true;
  int warmup_runs = 10;
  // The timed runs: at most timed_runs; with timing_precision or timing_budget_ms set, at least
  // min_timed_runs and no more once every timed series' median is known to timing_precision (its
  // 95% interval's half-width over it) or the timed runs took timing_budget_ms in all. Both 0:
  // exactly timed_runs (python/adaexplore_worker/timing/stopping.py).
  int timed_runs = 100;
  int min_timed_runs = 20;
  double timing_budget_ms = 1000;
  double timing_precision = 0.005;
  // A reference not interleaved with the candidate is timed once per task and worker (in the
  // first candidate's task phases) and reused by later candidates while a check of
  // min_timed_runs runs finds its median within this share of the stored one; 0: timed for
  // every candidate (measure.py).
  double reference_reuse_drift = 0;
  bool fresh_inputs_per_run = true;  // New input buffers and values for every timed run.
  bool interleave_reference = true;  // Reference timed beside the candidate, random order.
  bool revalidate_timed = true;      // Check every timed output against the reference.
  double revalidate_atol = 2e-4;
  double revalidate_rtol = 2e-4;
  // The head start's cap in microseconds: above 0, a timed run whose host outlasted the head
  // start (the L2 flush, then a spin) is not kept while the spin can still grow to cover twice
  // that host time (python/adaexplore_worker/timing/head_start.py); 0: the flush alone, every run
  // kept. Strict: 10 ms, so a run's GPU time holds the GPU's work as if the host had launched the
  // call ahead of it (as inside a model), not the gaps its launching left; a wait for the GPU
  // inside the call (a copy to the host, a synchronise) still leaves a gap that counts. A run's
  // wall time starts at the head start's end on the GPU, so a grown spin is not in it (timing.py).
  double head_start_max_us = 10000;
  // Also time the reference in the task's phases, before any candidate is imported, and seal the
  // series with its outputs (python/adaexplore_worker/evaluation/child.py): the judge reports them,
  // and a reference slower beside the candidate than there is compared by that clean timing
  // (eval/classify_judge.cc). Off in the release's profiles (reference, kernelbench).
  bool clean_reference_timing = true;
  bool l2_flush = true;
  bool compile_baseline = false;  // Also time torch.compile(reference).
  bool expert_baseline = true;    // Also time the task's expert kernel, where it has one.
  GenerateOn generate_on = GenerateOn::kDevice;
  bool measure = true;  // Time correct candidates.
  bool time_only_if_correct = true;
  bool null_selftest = true;  // Flag tasks that trivial outputs pass.
  bool kernel_trace = true;   // One call under the profiler (GPU): which kernels ran.
  // Every timed run also a window on the GPU's own timeline (CUPTI; GPU): the GPU scope's
  // figures. Set from the profile's speedup scope (EvalProfile::ToJobOptions), not on its own.
  bool gpu_timeline = false;
  // The source rules that reject (the profile's reject_static): a candidate whose source breaks
  // one is not imported, so none of its code runs.
  std::vector<std::string> reject_rules;
  // Above 1: a KernelBench task's module-level sizes above 64 divided by this (never below 64)
  // before its weights and inputs are made; a smoke test, marked in every result (--shrink).
  int shrink = 1;
  // A KernelBench task's module-level sizes set to these before its weights and inputs are made:
  // one of the other size sets a correct kernel is checked at (eval/size_variants.h). Empty:
  // the task's own.
  std::map<std::string, int64_t> sizes;
  // Other size sets checked in this job: their references made in the reference phase, before
  // the candidate is imported, and sealed with the task's own for the judge; once the
  // candidate's own trials (and rerun) passed, each set's trials run last. Empty: none.
  std::vector<SizeSet> size_sets;
  // compute-sanitizer's tools to run the candidate's call under, in turn, instead of evaluating
  // it (eval/sanitizer.h); each run may take sanitize_timeout_s. Empty: an evaluation.
  std::vector<std::string> sanitize;
  double sanitize_timeout_s = 300;
};

// Calls visit(name, field) for every field of JobOptions, in the order above: the one list that
// ToJson, JobOptionsFromJson and the schema's field table are made from.
template <typename Options, typename Visitor>
void VisitJobOptions(Options& o, Visitor&& visit) {
  visit("device", o.device);
  visit("baseline", o.baseline);
  visit("exclusive", o.exclusive);
  visit("precision", o.precision);
  visit("allow_tf32", o.allow_tf32);
  visit("trials", o.trials);
  visit("seed_mode", o.seed_mode);
  visit("seed", o.seed);
  visit("init_seed", o.init_seed);
  visit("distributions", o.distributions);
  visit("integrity_distributions", o.integrity_distributions);
  visit("reference_precision", o.reference_precision);
  visit("reference_gpu_fraction", o.reference_gpu_fraction);
  visit("fp64_budget_s", o.fp64_budget_s);
  visit("criterion", o.criterion);
  visit("atol", o.atol);
  visit("rtol", o.rtol);
  visit("determinism_check", o.determinism_check);
  visit("poison_memory", o.poison_memory);
  visit("stop_at_first_failure", o.stop_at_first_failure);
  visit("warmup_runs", o.warmup_runs);
  visit("timed_runs", o.timed_runs);
  visit("min_timed_runs", o.min_timed_runs);
  visit("timing_budget_ms", o.timing_budget_ms);
  visit("timing_precision", o.timing_precision);
  visit("reference_reuse_drift", o.reference_reuse_drift);
  visit("fresh_inputs_per_run", o.fresh_inputs_per_run);
  visit("interleave_reference", o.interleave_reference);
  visit("revalidate_timed", o.revalidate_timed);
  visit("revalidate_atol", o.revalidate_atol);
  visit("revalidate_rtol", o.revalidate_rtol);
  visit("l2_flush", o.l2_flush);
  visit("head_start_max_us", o.head_start_max_us);
  visit("clean_reference_timing", o.clean_reference_timing);
  visit("compile_baseline", o.compile_baseline);
  visit("expert_baseline", o.expert_baseline);
  visit("generate_on", o.generate_on);
  visit("measure", o.measure);
  visit("time_only_if_correct", o.time_only_if_correct);
  visit("null_selftest", o.null_selftest);
  visit("kernel_trace", o.kernel_trace);
  visit("gpu_timeline", o.gpu_timeline);
  visit("reject_rules", o.reject_rules);
  visit("shrink", o.shrink);
  visit("sizes", o.sizes);
  visit("size_sets", o.size_sets);
  visit("sanitize", o.sanitize);
  visit("sanitize_timeout_s", o.sanitize_timeout_s);
}

nlohmann::json ToJson(const JobOptions& options);
// Strict: a missing, unknown or mistyped key is a ProtocolError naming it.
Result<JobOptions> JobOptionsFromJson(const nlohmann::json& j);

struct SourceText {
  std::string filename;  // As the task or candidate was named ("relu.py").
  std::string source;
};

// A job's task: its file, its format (task/task_kind.h), and for a FlashInfer-Trace definition
// the workload to evaluate (an object; null for the other kinds) and the folder the workload's
// blob paths are relative to.
struct TaskText {
  std::string filename;
  std::string source;
  TaskKind kind = TaskKind::kKernelBench;
  nlohmann::json workload;
  std::string data_root;
};

// One `eval` message. The pool that sends it sets its id and timeout_s again (it owns both).
struct EvalJob {
  std::string id;
  std::string nonce;  // The evaluation child's result must carry it.
  TaskText task;
  SourceText candidate;
  JobOptions options;
  double timeout_s = 180;
  double memory_limit_mb = 0;  // 0: no limit.
  // Names the job's reference outputs in the worker's reference cache (eval/reference_key.h):
  // jobs with the same key share them. Empty: made for this job alone.
  std::string reference_key;
};

// The `task` of a job evaluating `task`.
TaskText ToTaskText(const SourceFile& task);

nlohmann::json ToJson(const EvalJob& job);
Result<EvalJob> EvalJobFromJson(const nlohmann::json& j);

template <typename T>
struct IsStringMap : std::false_type {};
template <typename V>
struct IsStringMap<std::map<std::string, V>> : std::true_type {};

// The JSON type a C++ field is sent as, in the words of FactFields(); an enum's is its names
// ("one of fp32, bf16, fp16"), which the worker's Literal types must list in the same order.
template <typename T>
inline std::string JsonKind() {
  if constexpr (std::is_same_v<T, bool>) {
    return "boolean";
  } else if constexpr (std::is_integral_v<T>) {
    return "integer";
  } else if constexpr (std::is_floating_point_v<T>) {
    return "number";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "string";
  } else if constexpr (IsStringMap<T>::value) {
    return "object";
  } else if constexpr (NamedEnum<T>) {
    std::string kind = "one of ";
    for (std::string_view name : EnumNameList<T>()) {
      kind += std::string(kind.size() > 7 ? ", " : "") + std::string(name);
    }
    return kind;
  } else {
    return "array";
  }
}

// The facts a worker may report (facts of a `result`), each with its JSON type: "string",
// "integer", "number", "boolean", "array", "object", or alternatives joined by '|' in sorted
// order ("integer|null"). Only `status` is always present.
const std::vector<std::pair<std::string_view, std::string_view>>& FactFields();

// Checks that `facts` is an object holding a declared status and only declared facts of their
// declared types; a ProtocolError naming the first that is not.
Status ValidateFacts(const nlohmann::json& facts);

// Facts the C++ side makes itself when no worker reported any (a worker that died or never
// answered): `status`, the `message` and the `phase` it was in, and an `error` of type "Pool".
nlohmann::json HarnessFacts(FactStatus status, std::string_view message, std::string_view phase);

// Every declared field by message and its JSON type, as python/.../protocol.py's schema_fields()
// gives it, the nested facts' shapes (workers/facts.h) under "nested":
// tests/golden/protocol/fields.json holds what both must equal.
nlohmann::json SchemaFields();

// What one SM holds at most (the device's properties), for a launch's theoretical occupancy.
struct SmLimits {
  int64_t registers = 0;     // 32-bit registers per SM.
  int64_t shared_bytes = 0;  // Shared memory per SM.
  int64_t threads = 0;       // Resident threads per SM.
  int64_t blocks = 32;       // Resident blocks per SM (32 from compute capability 8.0 to 9.0).
  int64_t sms = 0;
  bool known() const { return registers > 0 && shared_bytes > 0 && threads > 0 && sms > 0; }
};

// What the device can do at most, measured by the worker when it starts (GPU only).
struct DeviceCeilings {
  double copy_bytes_per_s = 0;  // Device-to-device copy, bytes read plus written.
  double bf16_flops_per_s = 0;  // Dense bf16 matrix rate: no arithmetic is faster.
  double fp32_flops_per_s = 0;  // Dense fp32 matrix rate without TF32; 0: not measured.
  SmLimits sm;
  bool known() const { return copy_bytes_per_s > 0 && bf16_flops_per_s > 0; }
};

struct WorkerHello {
  int protocol = 0;
  int pid = 0;
  std::string python;
  std::string torch;
  std::string triton;
  DeviceKind device_kind = DeviceKind::kCpu;
  std::string device_name;  // "NVIDIA H200", or the CPU's name.
  nlohmann::json device;    // Everything the worker said about its device.
  DeviceCeilings ceilings;  // Unknown (zeros) on the CPU or when measuring failed.
  int slots = 1;            // Evaluations it runs at once.
  int ahead = 0;            // Jobs beyond those whose task phases it runs ahead of a free slot.
  double import_s = 0;
  bool triton_interpret = false;
  std::string harness;  // SHA-256 of the worker's own sources (its checks and timer).
  // The sandbox's protections as the worker's self-test found them (sandbox_selftest.py).
  nlohmann::json containment = nlohmann::json::object();
  // Where the worker found compute-sanitizer ({path, version}), or why not ({missing}).
  nlohmann::json compute_sanitizer = nlohmann::json::object();

  // What results depend on besides the sources and the profile: the GPU model, the versions of
  // the software that compiles and runs kernels, and the worker's own code.
  std::string Fingerprint() const;
};

struct WorkerEvent {
  // kStopping: the worker is about to exit because something outside sent it a stop signal.
  enum class Kind { kHello, kStarted, kProgress, kResult, kStopping };
  Kind kind = Kind::kResult;
  std::string id;       // Job id (all but hello and stopping).
  nlohmann::json body;  // The whole message.
};

// Phases before the candidate is imported (a job's `phase`): only the harness's and the task's
// code has run, so nothing that happens in them is the candidate's doing.
bool IsTaskPhase(std::string_view phase);

// Decodes one line. Unknown message types and malformed JSON are kProtocolError.
Result<WorkerEvent> ParseWorkerLine(std::string_view line);

// Validates a hello message: version, device facts, or the worker's own startup error.
Result<WorkerHello> ParseHello(const nlohmann::json& message);

// The hello as a worker sends it, for relaying (a GPU host's hello over NATS): ParseHello of it
// gives the same hello back.
nlohmann::json HelloToJson(const WorkerHello& hello);

}  // namespace adaexplore
