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
  p.job.seed_mode = SeedMode::kPaper;
  p.seed = kPaperSeed;
  p.job.distributions = {"task"};
  p.job.reference_precision = ReferencePrecision::kTask;
  p.job.criterion = Criterion::kAllclose;
  p.job.atol = p.job.rtol = kPaperTolerance;
  p.job.determinism_check = false;
  p.job.poison_memory = false;
  p.job.warmup_runs = 10;
  p.job.timed_runs = 100;
  p.job.fresh_inputs_per_run = false;
  p.job.interleave_reference = false;
  p.job.revalidate_timed = false;
  p.job.l2_flush = false;
  p.check_stream_escape = false;
  p.job.generate_on = GenerateOn::kCpu;
  p.statistic = Statistic::kTrimmedMean;
  p.reject_flag_changes = false;
  p.reject_static.clear();
  p.reject_threads_left_running = false;
  p.reject_patching = false;
  p.speed_of_light = false;
  p.job.kernel_trace = false;
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

void SetPrecision(EvalProfile& profile, Precision precision) {
  profile.job.precision = precision;
  if (profile.name == "strict") {
    profile.job.atol = profile.job.rtol =
        precision == Precision::kFp32 ? kStrictFp32Tolerance : kStrictHalfTolerance;
  }
}

JobOptions EvalProfile::ToJobOptions(DeviceKind device) const {
  JobOptions options = job;
  options.device = device;
  options.baseline = false;
  options.exclusive = false;
  options.seed = seed.value_or(0);
  options.revalidate_atol = job.atol * revalidate_factor;
  options.revalidate_rtol = job.rtol * revalidate_factor;
  options.time_only_if_correct = true;
  return options;
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
