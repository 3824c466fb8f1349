#include "eval/verdict.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <utility>

#include "core/enum_names.h"

namespace adaexplore {
namespace {

constexpr std::array<std::pair<Verdict, std::string_view>, 9> kNames = {{
    {Verdict::kCorrect, "correct"},
    {Verdict::kIncorrect, "incorrect"},
    {Verdict::kRejected, "rejected"},
    {Verdict::kCompileError, "compile_error"},
    {Verdict::kRuntimeError, "runtime_error"},
    {Verdict::kTimeout, "timeout"},
    {Verdict::kCrash, "crash"},
    {Verdict::kTaskError, "task_error"},
    {Verdict::kError, "error"},
}};

constexpr double kTrimFraction = 0.05;

template <typename T>
nlohmann::json OptionalJson(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

std::optional<double> OptionalDouble(const nlohmann::json& j, const char* key) {
  if (j.contains(key) && j[key].is_number()) {
    return j[key].get<double>();
  }
  return std::nullopt;
}

std::optional<TimingStats> OptionalStats(const nlohmann::json& j, const char* key) {
  if (j.contains(key) && j[key].is_object()) {
    return TimingStatsFromJson(j[key]);
  }
  return std::nullopt;
}

constexpr std::string_view kNoKernelName = "no_kernel";  // A step without a kernel.

}  // namespace

std::string_view VerdictName(Verdict verdict) { return NameIn(kNames, verdict, "error"); }

std::optional<Verdict> ParseVerdict(std::string_view name) { return ValueIn(kNames, name); }

std::vector<Verdict> AllVerdicts() {
  std::vector<Verdict> all;
  for (const auto& [verdict, name] : kNames) {
    all.push_back(verdict);
  }
  return all;
}

std::optional<StepVerdict> StepVerdict::Parse(std::string_view name) {
  if (name == kNoKernelName) {
    return NoKernel();
  }
  const std::optional<Verdict> verdict = ParseVerdict(name);
  return verdict ? std::optional<StepVerdict>(Of(*verdict)) : std::nullopt;
}

std::string_view StepVerdict::name() const { return kernel ? VerdictName(*kernel) : kNoKernelName; }

TimingStats ComputeTimingStats(std::vector<double> samples) {
  TimingStats stats;
  if (samples.empty()) {
    return stats;
  }
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  stats.runs = static_cast<int>(n);
  stats.min_ms = samples.front();
  stats.max_ms = samples.back();
  stats.median_ms = n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  stats.mean_ms = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(n);
  double squares = 0;
  for (double s : samples) {
    squares += (s - stats.mean_ms) * (s - stats.mean_ms);
  }
  stats.std_ms = n > 1 ? std::sqrt(squares / static_cast<double>(n - 1)) : 0.0;
  stats.cv = stats.mean_ms > 0 ? stats.std_ms / stats.mean_ms : 0.0;
  // The reference release drops int(5% of n) samples at each end (5 of 100).
  const size_t trim = static_cast<size_t>(static_cast<double>(n) * kTrimFraction);
  const auto first = samples.begin() + static_cast<std::ptrdiff_t>(trim);
  const auto last = samples.end() - static_cast<std::ptrdiff_t>(trim);
  stats.trimmed_mean_ms =
      std::accumulate(first, last, 0.0) / static_cast<double>(std::distance(first, last));
  if (n >= 2 && stats.median_ms > 0) {
    constexpr double kZ95 = 1.96;
    const double nd = static_cast<double>(n);
    const double spread = kZ95 * std::sqrt(nd) / 2;
    // 1-based ranks, clamped to [1, n].
    const auto rank = [n](double r) { return std::clamp<size_t>(static_cast<size_t>(r), 1, n); };
    const size_t lo = rank(std::max(1.0, std::floor(nd / 2 - spread)));
    const size_t hi = rank(std::ceil(nd / 2 + spread));
    stats.median_halfwidth = (samples[hi - 1] - samples[lo - 1]) / 2 / stats.median_ms;
  }
  return stats;
}

std::string_view StatisticWords(Statistic statistic) {
  switch (statistic) {
    case Statistic::kTrimmedMean:
      return "trimmed mean";
    case Statistic::kMean:
      return "mean";
    case Statistic::kMedian:
      break;
  }
  return "median";
}

nlohmann::json ToJson(const TimingStats& s) {
  return {{"runs", s.runs},
          {"median_ms", s.median_ms},
          {"trimmed_mean_ms", s.trimmed_mean_ms},
          {"mean_ms", s.mean_ms},
          {"std_ms", s.std_ms},
          {"cv", s.cv},
          {"min_ms", s.min_ms},
          {"max_ms", s.max_ms},
          {"median_halfwidth",
           std::isfinite(s.median_halfwidth) ? nlohmann::json(s.median_halfwidth) : nullptr}};
}

TimingStats TimingStatsFromJson(const nlohmann::json& j) {
  TimingStats s;
  s.runs = j.value("runs", 0);
  s.median_ms = j.value("median_ms", 0.0);
  s.trimmed_mean_ms = j.value("trimmed_mean_ms", 0.0);
  s.mean_ms = j.value("mean_ms", 0.0);
  s.std_ms = j.value("std_ms", 0.0);
  s.cv = j.value("cv", 0.0);
  s.min_ms = j.value("min_ms", 0.0);
  s.max_ms = j.value("max_ms", 0.0);
  if (const auto it = j.find("median_halfwidth"); it != j.end() && it->is_number()) {
    s.median_halfwidth = it->get<double>();
  }
  return s;
}

nlohmann::json ToJson(const SizeCheck& check) {
  return {{"set", check.set},       {"sizes", check.sizes},   {"outcome", EnumName(check.outcome)},
          {"detail", check.detail}, {"wall_s", check.wall_s}, {"busy_s", check.busy_s},
          {"in_job", check.in_job}};
}

SizeCheck SizeCheckFromJson(const nlohmann::json& j) {
  SizeCheck check{
      .set = j.value("set", ""),
      .outcome = EnumFromName<SizeOutcome>(j.value("outcome", "")).value_or(SizeOutcome::kNotRun),
      .detail = j.value("detail", ""),
      .wall_s = j.value("wall_s", 0.0),
      .busy_s = j.value("busy_s", 0.0),
      .in_job = j.value("in_job", false)};
  if (j.contains("sizes") && j["sizes"].is_object()) {
    for (const auto& [name, value] : j["sizes"].items()) {
      if (value.is_number_integer()) {
        check.sizes[name] = value.get<int64_t>();
      }
    }
  }
  return check;
}

nlohmann::json ToJson(const SanitizerCheck& check) {
  return {{"tool", check.tool},
          {"outcome", EnumName(check.outcome)},
          {"errors", OptionalJson(check.errors)},
          {"detail", check.detail},
          {"wall_s", check.wall_s}};
}

SanitizerCheck SanitizerCheckFromJson(const nlohmann::json& j) {
  SanitizerCheck check{.tool = j.value("tool", ""),
                       .outcome = EnumFromName<SanitizerOutcome>(j.value("outcome", ""))
                                      .value_or(SanitizerOutcome::kNotRun),
                       .detail = j.value("detail", ""),
                       .wall_s = j.value("wall_s", 0.0)};
  if (const auto it = j.find("errors"); it != j.end() && it->is_number_integer()) {
    check.errors = it->get<int>();
  }
  return check;
}

nlohmann::json ToJson(const EvalResult& r) {
  nlohmann::json timing = {
      {"statistic", r.statistic ? EnumName(*r.statistic) : ""},
      {"meaningful", r.timing_meaningful},
      {"unsettled", r.timing_unsettled},
      {"candidate_kernel_us", OptionalJson(r.candidate_kernel_us)},
      {"reference_kernel_us", OptionalJson(r.reference_kernel_us)},
      {"candidate", r.candidate_timing ? ToJson(*r.candidate_timing) : nlohmann::json(nullptr)},
      {"reference", r.reference_timing ? ToJson(*r.reference_timing) : nlohmann::json(nullptr)},
      {"compiled_reference", r.compiled_reference_timing ? ToJson(*r.compiled_reference_timing)
                                                         : nlohmann::json(nullptr)},
      {"expert", r.expert_timing ? ToJson(*r.expert_timing) : nlohmann::json(nullptr)},
      {"candidate_gpu",
       r.candidate_gpu_timing ? ToJson(*r.candidate_gpu_timing) : nlohmann::json(nullptr)},
      {"reference_gpu",
       r.reference_gpu_timing ? ToJson(*r.reference_gpu_timing) : nlohmann::json(nullptr)},
  };
  nlohmann::json size_checks = nlohmann::json::array();
  for (const SizeCheck& check : r.size_checks) {
    size_checks.push_back(ToJson(check));
  }
  nlohmann::json sanitizer = nlohmann::json::array();
  for (const SanitizerCheck& check : r.sanitizer) {
    sanitizer.push_back(ToJson(check));
  }
  return {
      {"task", r.task},
      {"task_path", r.task_path},
      {"kernel", r.kernel_path},
      {"verdict", VerdictName(r.verdict)},
      {"reason", r.reason},
      {"check", r.check},
      {"speedup", OptionalJson(r.speedup)},
      {"speedup_compiled", OptionalJson(r.speedup_compiled)},
      {"speedup_expert", OptionalJson(r.speedup_expert)},
      {"scope", EnumName(r.scope)},
      {"speedup_kernel", OptionalJson(r.speedup_kernel)},
      {"speedup_call", OptionalJson(r.speedup_call)},
      {"expert", r.expert},
      {"passed_trials", r.passed_trials},
      {"max_abs_err", OptionalJson(r.max_abs_err)},
      {"max_rel_err", OptionalJson(r.max_rel_err)},
      {"degenerate", r.degenerate},
      {"findings", r.findings},
      {"speed_of_light_ms", OptionalJson(r.speed_of_light_ms)},
      {"sol_fraction", OptionalJson(r.sol_fraction)},
      {"kernel_profile",
       {{"bottleneck",
         r.bottleneck.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.bottleneck)},
        {"text", r.profile_text},
        {"unavailable", r.profile_unavailable}}},
      {"shrink", r.shrink},
      {"shrunk", r.shrunk},
      {"size_checks", size_checks},
      {"sanitizer", sanitizer},
      {"timing", timing},
      {"profile", r.profile},
      {"device", r.device},
      {"worker", r.worker},
      {"cache_key", r.cache_key},
      {"cached", r.cached},
      {"wall_s", r.wall_s},
      {"error", r.error_text},
      {"stdout", r.stdout_tail},
      {"stderr", r.stderr_tail},
      {"facts", r.facts},
  };
}

EvalResult EvalResultFromJson(const nlohmann::json& j) {
  EvalResult r;
  r.task = j.value("task", "");
  r.task_path = j.value("task_path", "");
  r.kernel_path = j.value("kernel", "");
  r.verdict = ParseVerdict(j.value("verdict", "error")).value_or(Verdict::kError);
  r.reason = j.value("reason", "");
  r.check = j.value("check", "");
  r.speedup = OptionalDouble(j, "speedup");
  r.speedup_compiled = OptionalDouble(j, "speedup_compiled");
  r.speedup_expert = OptionalDouble(j, "speedup_expert");
  r.scope = EnumFromName<TimingScope>(j.value("scope", "call")).value_or(TimingScope::kCall);
  r.speedup_kernel = OptionalDouble(j, "speedup_kernel");
  r.speedup_call = OptionalDouble(j, "speedup_call");
  r.expert = j.value("expert", "");
  r.passed_trials = j.value("passed_trials", false);
  r.max_abs_err = OptionalDouble(j, "max_abs_err");
  r.max_rel_err = OptionalDouble(j, "max_rel_err");
  r.speed_of_light_ms = OptionalDouble(j, "speed_of_light_ms");
  r.sol_fraction = OptionalDouble(j, "sol_fraction");
  if (j.contains("kernel_profile") && j["kernel_profile"].is_object()) {
    const nlohmann::json& p = j["kernel_profile"];
    r.bottleneck = p.contains("bottleneck") && p["bottleneck"].is_string()
                       ? p["bottleneck"].get<std::string>()
                       : "";
    r.profile_text = p.value("text", "");
    r.profile_unavailable = p.value("unavailable", "");
  }
  r.shrink = j.value("shrink", 1);
  if (j.contains("shrunk") && j["shrunk"].is_array()) {
    for (const nlohmann::json& size : j["shrunk"]) {
      if (size.is_string()) {
        r.shrunk.push_back(size.get<std::string>());
      }
    }
  }
  if (j.contains("size_checks") && j["size_checks"].is_array()) {
    for (const nlohmann::json& check : j["size_checks"]) {
      if (check.is_object()) {
        r.size_checks.push_back(SizeCheckFromJson(check));
      }
    }
  }
  if (j.contains("sanitizer") && j["sanitizer"].is_array()) {
    for (const nlohmann::json& check : j["sanitizer"]) {
      if (check.is_object()) {
        r.sanitizer.push_back(SanitizerCheckFromJson(check));
      }
    }
  }
  if (j.contains("degenerate") && j["degenerate"].is_array()) {
    for (const nlohmann::json& name : j["degenerate"]) {
      if (name.is_string()) {
        r.degenerate.push_back(name.get<std::string>());
      }
    }
  }
  if (j.contains("findings") && j["findings"].is_array()) {
    for (const nlohmann::json& finding : j["findings"]) {
      if (finding.is_string()) {
        r.findings.push_back(finding.get<std::string>());
      }
    }
  }
  if (j.contains("timing") && j["timing"].is_object()) {
    const nlohmann::json& t = j["timing"];
    r.statistic = EnumFromName<Statistic>(t.value("statistic", ""));
    r.timing_meaningful = t.value("meaningful", false);
    r.timing_unsettled = t.value("unsettled", false);
    r.candidate_kernel_us = OptionalDouble(t, "candidate_kernel_us");
    r.reference_kernel_us = OptionalDouble(t, "reference_kernel_us");
    r.candidate_timing = OptionalStats(t, "candidate");
    r.reference_timing = OptionalStats(t, "reference");
    r.compiled_reference_timing = OptionalStats(t, "compiled_reference");
    r.expert_timing = OptionalStats(t, "expert");
    r.candidate_gpu_timing = OptionalStats(t, "candidate_gpu");
    r.reference_gpu_timing = OptionalStats(t, "reference_gpu");
  }
  r.profile = j.value("profile", "");
  r.device = j.value("device", "");
  r.worker = j.value("worker", "");
  r.cache_key = j.value("cache_key", "");
  r.cached = j.value("cached", false);
  r.wall_s = j.value("wall_s", 0.0);
  r.error_text = j.value("error", "");
  r.stdout_tail = j.value("stdout", "");
  r.stderr_tail = j.value("stderr", "");
  r.facts = j.value("facts", nlohmann::json::object());
  return r;
}

}  // namespace adaexplore
