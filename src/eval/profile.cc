#include "eval/profile.h"

namespace adaexplore {
namespace {

constexpr double kStrictFp32Tolerance = 1e-4;
constexpr double kStrictHalfTolerance = 1e-2;
constexpr double kPaperTolerance = 5e-2;
constexpr uint64_t kPaperSeed = 42;

}  // namespace

EvalProfile StrictProfile() { return EvalProfile{}; }

EvalProfile PaperProfile() {
  EvalProfile p;
  p.name = "paper";
  p.seed_mode = "paper";
  p.seed = kPaperSeed;
  p.distributions = {"task"};
  p.reference_precision = "task";
  p.criterion = "allclose";
  p.atol = p.rtol = kPaperTolerance;
  p.determinism_check = false;
  p.poison_memory = false;
  p.warmup_runs = 10;
  p.timed_runs = 100;
  p.fresh_inputs_per_run = false;
  p.interleave_reference = false;
  p.revalidate_timed = false;
  p.l2_flush = false;
  p.check_stream_escape = false;
  p.generate_on = "cpu";
  p.statistic = "trimmed_mean";
  p.reject_flag_changes = false;
  p.reject_static.clear();
  p.reject_threads_left_running = false;
  p.reject_patching = false;
  p.speed_of_light = false;
  p.kernel_trace = false;
  return p;
}

const std::vector<std::string_view>& ProfileNames() {
  static const std::vector<std::string_view> names = {"strict", "paper"};
  return names;
}

Result<EvalProfile> ProfileByName(std::string_view name) {
  if (name == "strict") {
    return StrictProfile();
  }
  if (name == "paper") {
    return PaperProfile();
  }
  return InvalidArgument("unknown evaluation profile '" + std::string(name) +
                         "' (use strict or paper)");
}

Status SetPytorchCompute(EvalProfile& profile, std::string_view policy) {
  if (policy != "allowed" && policy != "forbidden" && policy != "unrestricted") {
    return InvalidArgument("unknown pytorch_compute '" + std::string(policy) +
                           "' (use allowed, forbidden or unrestricted)");
  }
  profile.pytorch_compute = std::string(policy);
  return Status::Ok();
}

Status SetPrecision(EvalProfile& profile, std::string_view precision) {
  if (precision != "fp32" && precision != "bf16" && precision != "fp16") {
    return InvalidArgument("unknown precision '" + std::string(precision) +
                           "' (use fp32, bf16 or fp16)");
  }
  profile.precision = std::string(precision);
  if (profile.name == "strict") {
    profile.atol = profile.rtol = precision == "fp32" ? kStrictFp32Tolerance : kStrictHalfTolerance;
  }
  return Status::Ok();
}

JobOptions EvalProfile::ToJobOptions(std::string_view device) const {
  return JobOptions{
      .device = std::string(device),
      .baseline = false,
      .exclusive = false,
      .precision = precision,
      .allow_tf32 = allow_tf32,
      .trials = trials,
      .seed_mode = seed_mode,
      .seed = seed.value_or(0),
      .init_seed = init_seed,
      .distributions = distributions,
      .reference_precision = reference_precision,
      .reference_gpu_fraction = reference_gpu_fraction,
      .criterion = criterion,
      .atol = atol,
      .rtol = rtol,
      .determinism_check = determinism_check,
      .poison_memory = poison_memory,
      .stop_at_first_failure = stop_at_first_failure,
      .warmup_runs = warmup_runs,
      .timed_runs = timed_runs,
      .fresh_inputs_per_run = fresh_inputs_per_run,
      .interleave_reference = interleave_reference,
      .revalidate_timed = revalidate_timed,
      .revalidate_atol = atol * revalidate_factor,
      .revalidate_rtol = rtol * revalidate_factor,
      .l2_flush = l2_flush,
      .compile_baseline = compile_baseline,
      .generate_on = generate_on,
      .measure = measure,
      .time_only_if_correct = true,
      .null_selftest = null_selftest,
      .kernel_trace = kernel_trace,
  };
}

nlohmann::json EvalProfile::Fingerprint() const {
  // Everything the worker is told, plus what the C++ side decides with: the statistic the
  // speedup compares and which checks reject. Timeouts and limits are left out: they do not
  // change a result that completes (one that hit them is cached with them: Evaluator).
  nlohmann::json j = ToJson(ToJobOptions());
  for (const char* per_job : {"device", "baseline", "exclusive"}) {
    j.erase(per_job);  // The cache key has the device; the other two are not results' kind.
  }
  j["profile"] = name;
  j["seed"] = seed ? nlohmann::json(*seed) : nlohmann::json(nullptr);
  j["statistic"] = statistic;
  j["reject_flag_changes"] = reject_flag_changes;
  j["check_stream_escape"] = check_stream_escape;
  j["reject_static"] = reject_static;
  j["reject_threads_left_running"] = reject_threads_left_running;
  j["reject_patching"] = reject_patching;
  j["speed_of_light"] = speed_of_light;
  j["pytorch_compute"] = pytorch_compute;
  j["pytorch_compute_share"] = pytorch_compute_share;
  return j;
}

}  // namespace adaexplore
