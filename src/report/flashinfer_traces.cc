#include "report/flashinfer_traces.h"

#include <algorithm>

namespace adaexplore {
namespace {

// The solution's name: a Solution's own, else the candidate file's stem.
std::string SolutionName(const SourceFile& candidate) {
  const nlohmann::json j = nlohmann::json::parse(candidate.source, nullptr, false);
  if (j.is_object() && j.contains("name") && j["name"].is_string()) {
    return j["name"].get<std::string>();
  }
  return candidate.name;
}

std::string TraceStatus(Verdict verdict, const std::string& reason) {
  switch (verdict) {
    case Verdict::kCorrect:
      return "PASSED";
    case Verdict::kIncorrect:
      if (reason.find("shape") != std::string::npos) {
        return "INCORRECT_SHAPE";
      }
      return reason.find("dtype") != std::string::npos ? "INCORRECT_DTYPE" : "INCORRECT_NUMERICAL";
    case Verdict::kCompileError:
      return "COMPILE_ERROR";
    case Verdict::kTimeout:
      return "TIMEOUT";
    case Verdict::kRuntimeError:
    case Verdict::kCrash:
    case Verdict::kRejected:
      return "RUNTIME_ERROR";
    case Verdict::kTaskError:
    case Verdict::kError:
      break;
  }
  return "";
}

}  // namespace

std::vector<nlohmann::json> FlashInferTraces(const SourceFile& task, const SourceFile& candidate,
                                             const EvalResult& result, const WorkerHello& hello,
                                             const std::string& timestamp) {
  std::vector<nlohmann::json> lines;
  if (task.kind != TaskKind::kFlashInfer || !result.facts.contains("workloads")) {
    return lines;
  }
  std::string hardware = hello.device_name.empty() ? "unknown" : hello.device_name;
  std::replace(hardware.begin(), hardware.end(), ' ', '_');
  const nlohmann::json environment = {
      {"hardware", hardware},
      {"libs", {{"torch", hello.torch}, {"triton", hello.triton}, {"python", hello.python}}}};
  const nlohmann::json& rows = result.facts["workloads"];
  for (size_t i = 0; i < rows.size() && i < task.workloads.size(); ++i) {
    const nlohmann::json& row = rows[i];
    const std::optional<Verdict> verdict = ParseVerdict(row.value("verdict", std::string()));
    const std::string reason = row.value("reason", std::string());
    const std::string status = verdict ? TraceStatus(*verdict, reason) : "";
    if (status.empty()) {
      continue;
    }
    nlohmann::json evaluation = {
        {"status", status},
        {"log",
         verdict == Verdict::kRejected ? "rejected by an integrity check: " + reason : reason},
        {"correctness", nullptr},
        {"performance", nullptr},
        {"environment", environment},
        {"timestamp", timestamp}};
    if (status == "PASSED" || status == "INCORRECT_NUMERICAL") {
      evaluation["correctness"] = {{"max_relative_error", row.value("max_rel_err", 0.0)},
                                   {"max_absolute_error", row.value("max_abs_err", 0.0)}};
    }
    const Statistic statistic = result.statistic.value_or(Statistic::kMedian);
    if (status == "PASSED" && row.contains("candidate") && row.contains("reference") &&
        row["speedup"].is_number()) {
      // The profile's statistic (median or trimmed mean), not FlashInfer-Bench's plain mean.
      const TimingStats c = TimingStatsFromJson(row["candidate"]);
      const TimingStats r = TimingStatsFromJson(row["reference"]);
      evaluation["performance"] = {{"latency_ms", c.Of(statistic)},
                                   {"reference_latency_ms", r.Of(statistic)},
                                   {"speedup_factor", row["speedup"]}};
    }
    lines.push_back({{"definition", task.name},
                     {"solution", SolutionName(candidate)},
                     {"workload", task.workloads[i]},
                     {"evaluation", evaluation}});
  }
  return lines;
}

}  // namespace adaexplore
