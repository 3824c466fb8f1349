#include "report/spending.h"

#include <fmt/format.h>

#include "report/run_report.h"

namespace adaexplore {
namespace {

// The call that wrote a step's kernel: the last that answered, unless it only advised.
const CallRecord* Author(const StepRecord& step) {
  for (auto it = step.calls.rbegin(); it != step.calls.rend(); ++it) {
    if (it->error.empty() && it->role != "reviser") {
      return &*it;
    }
  }
  return nullptr;
}

// A call whose cost is unknown: answered live by a model with no price.
bool Unpriced(const CallRecord& call) {
  return !call.cost_usd && call.source == "live" && call.error.empty();
}

std::string Usd(const std::optional<double>& usd) {
  return usd ? fmt::format("${:.4f}", *usd) : "-";
}

nlohmann::json Optional(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

std::string CallCostText(const nlohmann::json& totals) {
  const double usd = totals.contains("cost_usd") && totals["cost_usd"].is_number()
                         ? totals["cost_usd"].get<double>()
                         : 0.0;  // null: no call was priced.
  const int64_t unpriced = totals.value("unpriced_calls", int64_t{0});
  const int64_t calls = totals.value("calls", int64_t{0});
  if (calls == 0) {
    return "-";
  }
  if (unpriced == calls) {
    return "unknown";
  }
  return fmt::format("{}${:.2f}", unpriced > 0 ? ">= " : "", usd);
}

std::string CallTotalsLine(const nlohmann::json& totals) {
  const int64_t read = totals.value("cached_input_tokens", int64_t{0});
  const int64_t written = totals.value("cache_write_tokens", int64_t{0});
  return fmt::format(
      "LLM: {} calls, {} tokens in{} / {} out, {}", totals.value("calls", int64_t{0}),
      totals.value("input_tokens", int64_t{0}),
      read + written > 0
          ? fmt::format(" ({} read from the prompt cache, {} written to it)", read, written)
          : "",
      totals.value("output_tokens", int64_t{0}), CallCostText(totals));
}

void SpendingTally::AddTask(const std::string& task, const std::vector<StepRecord>& steps) {
  TaskSpend spend{.task = task};
  double best = 0;
  int calls = 0;
  double cost = 0;
  bool priced = true;
  for (const StepRecord& step : steps) {
    for (const CallRecord& call : step.calls) {
      ++calls;
      cost += call.cost_usd.value_or(0);
      priced = priced && !Unpriced(call);
    }
    const bool improved = CountsForBest(step, size_specific_best_) && *step.speedup > best;
    if (improved) {
      best = *step.speedup;
      spend.best_node = step.node;
      spend.calls_to_best = calls;
      spend.cost_to_best_usd = priced ? std::optional<double>(cost) : std::nullopt;
    }
    if (const CallRecord* author = Author(step); author != nullptr && !step.kernel.empty()) {
      Kernels& k = kernels_[{author->model.empty() ? run_model_ : author->model, author->role}];
      ++k.kernels;
      k.correct += step.correct ? 1 : 0;
      k.improved += improved ? 1 : 0;
      improved_ += improved ? 1 : 0;
    }
  }
  tasks_.push_back(std::move(spend));
}

Result<RunSpending> SpendingTally::Finish(RunDb& db, int64_t run,
                                          const nlohmann::json& run_cost) const {
  RunSpending out{.improved = improved_, .tasks = tasks_};
  ASSIGN_OR_RETURN(std::vector<nlohmann::json> rows, db.CallTotalsByModelRole(run));
  for (nlohmann::json& row : rows) {
    ModelRoleSpend spend{.model = row["model"], .role = row["role"]};
    if (auto it = kernels_.find({spend.model, spend.role}); it != kernels_.end()) {
      spend.kernels = it->second.kernels;
      spend.correct = it->second.correct;
      spend.improved = it->second.improved;
    }
    row.erase("model");
    row.erase("role");
    spend.totals = std::move(row);
    out.by_model_role.push_back(std::move(spend));
  }
  const nlohmann::json& usd = run_cost.value("cost_usd", nlohmann::json());
  if (improved_ > 0 && usd.is_number() && run_cost.value("unpriced_calls", int64_t{0}) == 0) {
    out.cost_per_improved_usd = usd.get<double>() / improved_;
  }
  return out;
}

nlohmann::json SpendingJson(const RunSpending& spending) {
  nlohmann::json rows = nlohmann::json::array();
  for (const ModelRoleSpend& s : spending.by_model_role) {
    nlohmann::json row = s.totals;
    row["model"] = s.model;
    row["role"] = s.role;
    row["kernels"] = s.kernels;
    row["correct"] = s.correct;
    row["improved"] = s.improved;
    rows.push_back(std::move(row));
  }
  nlohmann::json tasks = nlohmann::json::array();
  for (const TaskSpend& t : spending.tasks) {
    tasks.push_back({{"task", t.task},
                     {"best_node", t.best_node ? nlohmann::json(*t.best_node) : nullptr},
                     {"calls_to_best", t.calls_to_best},
                     {"cost_to_best_usd", Optional(t.cost_to_best_usd)}});
  }
  return {{"by_model_role", rows},
          {"improved_kernels", spending.improved},
          {"cost_per_improved_usd", Optional(spending.cost_per_improved_usd)},
          {"tasks", tasks}};
}

std::string SpendingMarkdown(int64_t run, const RunSpending& spending) {
  std::string out = fmt::format(
      "\n## Run {} spending\n\n| model | role | calls | tokens in (cached, written to cache) / "
      "out | cost | kernels | correct | improved |\n|---|---|---|---|---|---|---|---|\n",
      run);
  for (const ModelRoleSpend& s : spending.by_model_role) {
    const nlohmann::json& t = s.totals;
    const nlohmann::json& usd = t.value("cost_usd", nlohmann::json());
    out +=
        fmt::format("| {} | {} | {} | {} ({}, {}) / {} | {} | {} | {} | {} |\n", s.model, s.role,
                    t.value("calls", int64_t{0}), t.value("input_tokens", int64_t{0}),
                    t.value("cached_input_tokens", int64_t{0}),
                    t.value("cache_write_tokens", int64_t{0}), t.value("output_tokens", int64_t{0}),
                    Usd(usd.is_number() ? std::optional<double>(usd.get<double>()) : std::nullopt),
                    s.kernels, s.correct, s.improved);
  }
  out += fmt::format("\nImproved kernels: {}; cost per improved kernel: {}.\n", spending.improved,
                     Usd(spending.cost_per_improved_usd));
  out += "\n| task | best node | calls to it | cost to it |\n|---|---|---|---|\n";
  for (const TaskSpend& t : spending.tasks) {
    out += fmt::format("| {} | {} | {} | {} |\n", t.task,
                       t.best_node ? std::to_string(*t.best_node) : "none", t.calls_to_best,
                       t.best_node ? Usd(t.cost_to_best_usd) : "-");
  }
  return out;
}

}  // namespace adaexplore
