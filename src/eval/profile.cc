#include "eval/profile.h"

#include <algorithm>
#include <array>

namespace adaexplore {
namespace {

constexpr double kStrictFp32Tolerance = 1e-4;
constexpr double kStrictHalfTolerance = 1e-2;
constexpr double kPaperTolerance = 5e-2;
constexpr uint64_t kPaperSeed = 42;
// The profiles that time the reference on its own reuse a task's reference timing on a worker
// while a short check finds its median within 2%: about the run-to-run spread of a millisecond
// kernel on the H200 (docs/results.md), far below the speedups a search tells apart.
constexpr double kReferenceReuseDrift = 0.02;
// The integrity trials' inputs: of the magnitude KernelBench's inputs have (randn, rand), so an
// honest kernel correct on the task's inputs is correct on them; a kernel right only for the
// task's range or sign (a copy for ReLU on U[0,1), a Taylor series for tanh near 0) is not.
// Scaled and heavy-tailed inputs would also fail honest half-precision kernels (overflow).
constexpr std::array<std::string_view, 2> kIntegrityDistributions = {"normal", "uniform_pm1"};

}  // namespace

EvalProfile StrictProfile() { return EvalProfile{}; }

void SetIntegrityChecks(EvalProfile& p, bool on) {
  p.job.determinism_check = on;
  p.job.poison_memory = on;
  p.job.revalidate_timed = on;
  p.job.clean_reference_timing = on;
  p.job.kernel_trace = on;
  p.check_stream_escape = on;
  p.speed_of_light = on;
  p.reject_static = on ? DefaultRejectedRules() : std::vector<std::string>{};
  p.reject_patching = on;
  p.reject_threads_left_running = on;
  p.reject_flag_changes = on;
  p.reject_swallowed = on;
  p.check_own_launches = on;
  p.job.integrity_distributions.clear();
  for (std::string_view d : kIntegrityDistributions) {
    if (on && std::ranges::find(p.job.distributions, d) == p.job.distributions.end()) {
      p.job.integrity_distributions.emplace_back(d);
    }
  }
}

EvalProfile ReferenceProfile() {
  EvalProfile p;
  p.name = "reference";
  p.size_checks = false;  // The release judges the task's own sizes only.
  p.job.seed_mode = SeedMode::kPaper;
  p.seed = kPaperSeed;
  p.job.distributions = {"task"};
  p.job.reference_precision = ReferencePrecision::kTask;
  p.job.criterion = Criterion::kAllclose;
  p.job.atol = p.job.rtol = kPaperTolerance;
  p.tolerance_by_precision = false;
  p.job.warmup_runs = 10;
  p.job.timed_runs = 100;
  p.job.timing_budget_ms = 0;  // The release's fixed count (KernelBench's too).
  p.job.timing_precision = 0;
  p.job.reference_reuse_drift = kReferenceReuseDrift;
  p.job.fresh_inputs_per_run = false;
  p.job.interleave_reference = false;
  p.job.l2_flush = false;
  p.job.generate_on = GenerateOn::kCpu;
  p.statistic = Statistic::kTrimmedMean;
  p.settle_limit = 0;
  p.speedup_scope = TimingScope::kCall;  // What the release and KernelBench measure.
  p.job.head_start_max_us = 0;           // Their timers: the flush (or nothing) alone.
  SetIntegrityChecks(p, false);
  return p;
}

EvalProfile KernelBenchProfile() {
  // KernelBench main's eval_kernel_against_ref as its scripts run it
  // (../shared/reference/kernelbench-harness-and-hacks.md): 5 trials on the task's own inputs,
  // seeds from torch.manual_seed(42), the reference in the task's precision, torch.allclose at
  // get_tolerance_for_precision's 1e-4 (fp32) or 1e-2 (fp16, bf16), 3 warm-up runs and 100 timed
  // runs on one input set with L2 flushed before each, the mean; the reference timed after the
  // candidate the same way. KernelBench also discards one first timed run: the warm-ups cover it.
  EvalProfile p = ReferenceProfile();
  p.name = "kernelbench";
  p.tolerance_by_precision = true;
  p.job.atol = p.job.rtol = StrictTolerance(p.job.precision);
  p.job.warmup_runs = 3;
  p.job.l2_flush = true;
  p.statistic = Statistic::kMean;
  return p;
}

EvalProfile PaperProfile() {
  // The release's tolerance, trials, inputs, statistic and baseline (timed on its own, on one
  // input set, without an L2 flush), and every check that cannot move an honest kernel's
  // figures: the candidate's timed runs get fresh inputs (an honest kernel's time does not depend
  // on the values) and each output is re-validated; the checks run in poisoned memory and are
  // repeated for determinism; the trace, the launch hooks and the source rules watch what runs.
  EvalProfile p = ReferenceProfile();
  p.name = "paper";
  p.job.fresh_inputs_per_run = true;  // What re-validation needs to catch replayed results.
  SetIntegrityChecks(p, true);
  return p;
}

const std::vector<ProfileInfo>& Profiles() {
  static const std::vector<ProfileInfo> profiles = {
      {"strict", "", StrictProfile},
      {"paper", "", PaperProfile},
      {"reference",
       "the 'reference' profile reproduces the reference release's check exactly and is "
       "gameable: timed results are not re-validated, side streams, threads, fallbacks and "
       "patched timers go unchecked; use 'paper' for its figures with integrity checks",
       ReferenceProfile},
      {"kernelbench",
       "the 'kernelbench' profile reproduces KernelBench main's check and is gameable as it is: "
       "timed results are not re-validated, side streams, threads, fallbacks and patched timers "
       "go unchecked; use 'strict' to trust a result",
       KernelBenchProfile},
  };
  return profiles;
}

const std::vector<std::string_view>& ProfileNames() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out;
    for (const ProfileInfo& info : Profiles()) {
      out.push_back(info.name);
    }
    return out;
  }();
  return names;
}

std::string_view ProfileCaveat(std::string_view name) {
  for (const ProfileInfo& info : Profiles()) {
    if (info.name == name) {
      return info.caveat;
    }
  }
  return "";
}

Result<EvalProfile> ProfileByName(std::string_view name) {
  std::string known;
  for (const ProfileInfo& info : Profiles()) {
    if (info.name == name) {
      return info.make();
    }
    known += (known.empty() ? "" : ", ") + std::string(info.name);
  }
  return InvalidArgument("unknown evaluation profile '" + std::string(name) + "' (use one of " +
                         known + ")");
}

double StrictTolerance(Precision precision) {
  return precision == Precision::kFp32 ? kStrictFp32Tolerance : kStrictHalfTolerance;
}

void SetPrecision(EvalProfile& profile, Precision precision) {
  profile.job.precision = precision;
  if (profile.tolerance_by_precision) {
    profile.job.atol = profile.job.rtol = StrictTolerance(precision);
  }
}

JobOptions EvalProfile::ToJobOptions(DeviceKind device, TaskKind kind) const {
  JobOptions options = job;
  if (KindInfo(kind).check == TaskCheck::kOwnBenchmark) {
    options.reference_precision = ReferencePrecision::kTask;
    options.distributions = {"task"};
    options.integrity_distributions.clear();
    options.criterion = Criterion::kAllclose;
    options.atol = std::max(options.atol, kBenchmarkTolerance);
    options.rtol = std::max(options.rtol, kBenchmarkTolerance);
  }
  options.device = device;
  options.baseline = false;
  options.exclusive = false;
  options.seed = seed.value_or(0);
  options.revalidate_atol = options.atol * revalidate_factor;
  options.revalidate_rtol = options.rtol * revalidate_factor;
  options.time_only_if_correct = true;
  options.reject_rules = reject_static;
  options.gpu_timeline = speedup_scope == TimingScope::kGpu;
  return options;
}

nlohmann::json EvalProfile::Fingerprint() const {
  // Everything the worker is told, plus what the C++ side decides with: the statistic the
  // speedup compares and which checks reject. Timeouts and limits are left out: they do not
  // change a result that completes (one that hit them is cached with them: Evaluator).
  nlohmann::json j = ToJson(ToJobOptions());
  for (const char* per_job :
       {"device", "baseline", "exclusive", "sanitize", "sanitize_timeout_s"}) {
    // The cache key has the device; the others are set per job, and a sanitizer's runs are
    // cached under their own key (Evaluator::SanitizerKey).
    j.erase(per_job);
  }
  j["profile"] = name;
  j["seed"] = seed ? nlohmann::json(*seed) : nlohmann::json(nullptr);
  j["statistic"] = statistic;
  j["settle_limit"] = settle_limit;
  j["speedup_scope"] = speedup_scope;
  j["reject_flag_changes"] = reject_flag_changes;
  j["check_stream_escape"] = check_stream_escape;
  j["reject_static"] = reject_static;
  j["reject_threads_left_running"] = reject_threads_left_running;
  j["reject_patching"] = reject_patching;
  j["reject_swallowed"] = reject_swallowed;
  j["check_own_launches"] = check_own_launches;
  j["speed_of_light"] = speed_of_light;
  j["pytorch_compute"] = pytorch_compute;
  j["pytorch_compute_share"] = pytorch_compute_share;
  j["size_checks"] = size_checks;
  j["sandbox"] = sandbox;  // A kernel that writes outside its folder fails in it.
  return j;
}

void CheckOnly(JobOptions& options) {
  options.measure = false;
  options.kernel_trace = false;
  options.gpu_timeline = false;
  options.null_selftest = false;
  options.compile_baseline = false;
  options.expert_baseline = false;
  options.clean_reference_timing = false;
}

}  // namespace adaexplore
