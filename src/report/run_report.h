#pragma once

// Reports over run databases: each run's tasks turned into outcomes (report/metrics.h), the
// metrics per run and per method (runs of one method pooled), LLM cost and tokens, evaluation
// hours; printed as Markdown, CSV or JSON.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "report/metrics.h"
#include "store/run_db.h"

namespace adaexplore {

struct RunReport {
  RunInfo run;
  std::vector<TaskOutcome> tasks;
  SuiteMetrics metrics;
  nlohmann::json cost;  // RunDb::CallTotals.
  double eval_hours = 0;
};

// Every run of the database at `path` (or only `run`). A missing file is an error, not a new
// empty database.
Result<std::vector<RunReport>> LoadRunReports(const std::string& path, std::optional<int64_t> run);

// The outcome of one task from its steps.
TaskOutcome OutcomeOf(const std::string& task, const std::vector<StepRecord>& steps);

nlohmann::json ReportJson(const std::vector<RunReport>& reports);
std::string ReportMarkdown(const std::vector<RunReport>& reports);
std::string ReportCsv(const std::vector<RunReport>& reports);  // One row per run and task.

}  // namespace adaexplore
