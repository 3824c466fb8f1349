#include "report/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <set>
#include <vector>

#include "core/json_text.h"
#include "core/saturating.h"
#include "eval/sanitizer.h"
#include "eval/size_checks.h"
#include "eval/verdict.h"

namespace adaexplore {

extern const char kReportHtml[];

namespace {

// A stored call's token count; 0 for anything but an integer (the database may be damaged).
int64_t UsageCount(const nlohmann::json& usage, const char* key) {
  const auto it = usage.find(key);
  return it != usage.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

constexpr size_t kMaxKernelChars = 200000;
constexpr std::string_view kPlaceholder = "/*ADAEXPLORE_DATA*/";

std::string Cut(const std::string& text) {
  return text.size() <= kMaxKernelChars ? text
                                        : text.substr(0, kMaxKernelChars) + "\n# ... (cut)\n";
}

// The colour of a step's outcome in the trees and the legend. A switch, so that a verdict
// added to the enum without a colour does not compile.
std::string_view Colour(const StepVerdict& step) {
  if (!step.kernel) {
    return "#bdbdbd";
  }
  switch (*step.kernel) {
    case Verdict::kCorrect:
      return "#2e7d32";
    case Verdict::kIncorrect:
      return "#ef6c00";
    case Verdict::kRejected:
      return "#000000";
    case Verdict::kCompileError:
      return "#c62828";
    case Verdict::kRuntimeError:
      return "#8e24aa";
    case Verdict::kTimeout:
      return "#6d4c41";
    case Verdict::kCrash:
      return "#37474f";
    case Verdict::kTaskError:
      return "#f9a825";
    case Verdict::kError:
      return "#9e9e9e";
  }
  return "#999999";
}

// Every step outcome's colour by its name, in the legend's order, and the root's.
nlohmann::json Colours() {
  nlohmann::json colours = nlohmann::json::array();
  std::vector<StepVerdict> outcomes;
  for (Verdict verdict : AllVerdicts()) {
    outcomes.push_back(StepVerdict{verdict});
  }
  outcomes.push_back(StepVerdict::NoKernel());
  for (const StepVerdict& outcome : outcomes) {
    colours.push_back({{"verdict", outcome.name()}, {"colour", Colour(outcome)}});
  }
  return colours;
}

}  // namespace

std::string ScriptSafeJson(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<') {
      out += "\\u003c";  // Only inside strings in JSON, where the escape means the same.
    } else {
      out += c;
    }
  }
  return out;
}

Result<std::string> HtmlReport(const std::string& db_path, const std::vector<RunReport>& reports,
                               const std::string& title) {
  ASSIGN_OR_RETURN(RunDb db, RunDb::Open(db_path));
  nlohmann::json trees = nlohmann::json::array();
  nlohmann::json cost = nlohmann::json::array();
  std::set<std::string> task_names;  // A task in several runs is one task.
  for (const RunReport& report : reports) {
    std::vector<std::pair<int64_t, std::pair<double, int64_t>>> spend;  // (time, (usd, tokens))
    bool all_priced = true;
    for (const TaskOutcome& outcome : report.tasks) {
      task_names.insert(outcome.task);
      ASSIGN_OR_RETURN(std::vector<StepRecord> steps, db.Steps(report.run.id, outcome.task));
      nlohmann::json nodes = nlohmann::json::array();
      nodes.push_back({{"id", 0}, {"parent", -1}, {"move", "root"}, {"verdict", "root"}});
      for (const StepRecord& step : steps) {
        if (step.node != static_cast<int>(nodes.size())) {
          break;  // Ids must be 1..N in order.
        }
        double usd = 0;
        int64_t tokens = 0;
        bool priced = !step.calls.empty();
        for (const CallRecord& call : step.calls) {
          if (call.cost_usd) {
            usd += *call.cost_usd;
          }
          priced = priced && call.cost_usd.has_value();
          tokens = SaturatingAdd(tokens, UsageCount(call.usage, "input"));
          tokens = SaturatingAdd(tokens, UsageCount(call.usage, "output"));
        }
        all_priced = all_priced && (priced || step.calls.empty());
        spend.push_back({step.created_at, {usd, tokens}});
        const std::string error = step.result.is_object() && step.result.contains("error") &&
                                          step.result["error"].is_string()
                                      ? step.result["error"].get<std::string>()
                                      : "";
        nodes.push_back(
            {{"id", step.node},
             {"parent", step.parent},
             {"move", step.move},
             {"verdict", step.verdict},
             {"speedup", step.correct && step.speedup ? nlohmann::json(*step.speedup)
                                                      : nlohmann::json(nullptr)},
             {"sol", step.correct && step.result.is_object() &&
                             step.result.contains("sol_fraction") &&
                             step.result["sol_fraction"].is_number()
                         ? step.result["sol_fraction"]
                         : nlohmann::json(nullptr)},
             {"scope", step.correct && step.result.is_object() ? step.result.value("scope", "call")
                                                               : "call"},
             {"speedup_call", step.correct && step.result.is_object() &&
                                      step.result.contains("speedup_call") &&
                                      step.result["speedup_call"].is_number()
                                  ? step.result["speedup_call"]
                                  : nlohmann::json(nullptr)},
             {"reason", step.reason},
             {"sizes_only", step.correct && step.result.is_object()
                                ? WrongSizesText(EvalResultFromJson(step.result))
                                : ""},
             {"unsafe", step.correct && step.result.is_object()
                            ? SanitizerText(EvalResultFromJson(step.result))
                            : ""},
             {"error", Cut(error)},
             {"kernel", Cut(step.kernel)},
             {"t", step.created_at},
             {"cost", priced ? nlohmann::json(usd) : nlohmann::json(nullptr)},
             {"tokens", tokens}});
      }
      trees.push_back({{"run", report.run.id}, {"task", outcome.task}, {"nodes", nodes}});
    }
    std::sort(spend.begin(), spend.end());
    nlohmann::json points = nlohmann::json::array();
    double total = 0;
    for (const auto& [t, amount] : spend) {
      total += all_priced ? amount.first : static_cast<double>(amount.second);
      points.push_back({static_cast<double>(t - report.run.created_at) / 60.0, total});
    }
    cost.push_back(
        {{"run", report.run.id}, {"unit", all_priced ? "usd" : "tokens"}, {"points", points}});
  }
  char stamp[32] = {};
  const std::time_t now = std::time(nullptr);
  (void)std::strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  const nlohmann::json data = {
      {"title", title},
      {"subtitle", fmt::format("{} run(s), {} task(s); generated {} from {}", reports.size(),
                               task_names.size(), stamp, db_path)},
      {"cpu_banner", kCpuRunBanner},
      {"unfinished_banner", kUnfinishedRunBanner},
      {"report", ReportJson(reports)},
      {"trees", trees},
      {"cost", cost},
      {"colours", Colours()}};
  std::string page = kReportHtml;
  const size_t at = page.find(kPlaceholder);
  if (at == std::string::npos) {
    return InternalError("the report template has no data placeholder");
  }
  page.replace(at, kPlaceholder.size(), ScriptSafeJson(JsonText(data)));
  return page;
}

}  // namespace adaexplore
