#include "report/kernelbench_results.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <string>

#include "task/task_file_name.h"

namespace adaexplore {
namespace {

// KernelBench's float(f"{x:.3g}").
double ThreeDigits(double value) { return std::stod(fmt::format("{:.3g}", value)); }

// The metadata key KernelBench files a failure of this kind under.
std::optional<std::string_view> KernelBenchErrorKey(Verdict verdict) {
  switch (verdict) {
    case Verdict::kCompileError:
      return "compilation_error";
    case Verdict::kRuntimeError:
    case Verdict::kCrash:
    case Verdict::kTimeout:
      return "runtime_error";
    case Verdict::kIncorrect:
    case Verdict::kRejected:
      return "correctness_issue";
    case Verdict::kCorrect:
    case Verdict::kTaskError:
    case Verdict::kError:
      break;
  }
  return std::nullopt;
}

}  // namespace

std::string KernelBenchProblemKey(const std::string& task) {
  size_t digits = 0;
  while (digits < task.size() && std::isdigit(static_cast<unsigned char>(task[digits])) != 0) {
    ++digits;
  }
  if (digits == 0 || (digits < task.size() && task[digits] != '_')) {
    return task;
  }
  // "007_x" is problem 7; as text, so a number of any length cannot overflow.
  const size_t first = task.find_first_not_of('0');
  return first >= digits ? "0" : task.substr(first, digits - first);
}

std::optional<int> KernelBenchTaskLevel(const std::string& task_path) {
  const std::string dir = std::filesystem::path(task_path).parent_path().filename().string();
  constexpr std::string_view kPrefix = "level";
  if (dir.size() <= kPrefix.size() || dir.size() > kPrefix.size() + 3 ||
      !dir.starts_with(kPrefix) ||
      !std::all_of(dir.begin() + static_cast<std::ptrdiff_t>(kPrefix.size()), dir.end(),
                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; })) {
    return std::nullopt;
  }
  return std::stoi(dir.substr(kPrefix.size()));
}

std::string KernelBenchKernelFile(const std::string& task, int level) {
  const std::string key = KernelBenchProblemKey(task);
  const bool numbered = key != task || std::all_of(key.begin(), key.end(), [](char c) {
                          return std::isdigit(static_cast<unsigned char>(c)) != 0;
                        });
  if (numbered && key.size() <= kMaxStemBytes) {
    return fmt::format("level_{}_problem_{}_sample_0_kernel.py", level, key);
  }
  return TaskFileStem(task) + "_kernel.py";
}

std::optional<nlohmann::json> KernelBenchSample(const EvalResult& result, int sample_id) {
  if (result.verdict == Verdict::kError || result.verdict == Verdict::kTaskError) {
    return std::nullopt;
  }
  nlohmann::json metadata = {{"hardware", result.device}, {"device", result.worker}};
  if (std::optional<std::string_view> key = KernelBenchErrorKey(result.verdict)) {
    metadata[std::string(*key)] = result.reason;
  }
  metadata["adaexplore"] = {
      {"kernel_file", std::filesystem::path(result.kernel_path).filename().string()},
      {"verdict", VerdictName(result.verdict)},
      {"reason", result.reason},
      {"check", result.check},
      {"profile", result.profile},
      {"statistic", result.statistic ? EnumName(*result.statistic) : ""},
      {"timing_meaningful", result.timing_meaningful},
      {"max_abs_err", result.max_abs_err ? nlohmann::json(*result.max_abs_err) : nullptr}};
  if (result.shrink > 1) {  // A smoke test: not the task's own sizes.
    metadata["adaexplore"]["shrink"] = result.shrink;
    metadata["adaexplore"]["shrunk"] = result.shrunk;
  }
  nlohmann::json entry = {{"sample_id", sample_id},
                          {"compiled", result.verdict != Verdict::kCompileError},
                          {"correctness", result.verdict == Verdict::kCorrect},
                          {"metadata", std::move(metadata)},
                          {"runtime", -1.0},
                          {"runtime_stats", nlohmann::json::object()}};
  const std::optional<TimingStats>& timing = result.candidate_timing;
  if (result.verdict == Verdict::kCorrect && timing && timing->runs > 0) {
    nlohmann::json stats = {{"mean", ThreeDigits(timing->mean_ms)},
                            {"std", ThreeDigits(timing->std_ms)},
                            {"min", ThreeDigits(timing->min_ms)},
                            {"max", ThreeDigits(timing->max_ms)},
                            {"num_trials", timing->runs},
                            {"hardware", result.device},
                            {"device", result.worker}};
    if (result.speedup) {
      stats["fast_p"] = *result.speedup;
    }
    if (result.reference_timing && result.reference_timing->runs > 0) {
      stats["baseline_time"] = ThreeDigits(result.reference_timing->mean_ms);
    }
    entry["runtime"] = stats["mean"];
    entry["runtime_stats"] = std::move(stats);
  }
  return entry;
}

nlohmann::json KernelBenchResults(const std::vector<EvalResult>& results) {
  nlohmann::json file = nlohmann::json::object();
  std::map<std::string, int> samples;
  for (const EvalResult& result : results) {
    const std::string key = KernelBenchProblemKey(result.task);
    std::optional<nlohmann::json> entry = KernelBenchSample(result, samples[key]);
    if (!entry) {
      continue;
    }
    ++samples[key];
    if (!file.contains(key)) {
      file[key] = nlohmann::json::array();
    }
    file[key].push_back(*std::move(entry));
  }
  return file;
}

}  // namespace adaexplore
