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
#include "report/spending.h"
#include "store/run_db.h"

namespace adaexplore {

struct RunReport {
  RunInfo run;
  std::vector<TaskOutcome> tasks;
  SuiteMetrics metrics;
  nlohmann::json cost;   // RunDb::CallTotals.
  RunSpending spending;  // Per model and role, per improved kernel, per task's best.
  double eval_hours = 0;
};

// Where a run's kernels were judged, in words: "NVIDIA H200, torch 2.11.0, triton 3.6.0,
// Python 3.12, profile strict" (a run recorded before this was kept: its profile only).
std::string EnvironmentLine(const RunInfo& run);
// Whether a run's kernels ran in Triton's interpreter on the CPU (its speedups mean nothing).
bool CpuRun(const RunInfo& run);
// The factor a run's tasks' sizes were divided by (--shrink, a smoke test); 1: their own.
int Shrink(const RunInfo& run);
// What a report says of a run that did not finish (stopped, or killed while running): its
// figures cover the steps it took, not the ones it was given.
inline constexpr std::string_view kUnfinishedRunBanner =
    "not finished: its figures cover the steps it took (run --resume continues it)";
// The banner every report of such a run carries.
inline constexpr std::string_view kCpuRunBanner =
    "CPU run: kernels ran in Triton's interpreter on the CPU; correctness is real, speedups and "
    "times are not kernel performance";

// Every run of the database at `path` (or only `run`). A missing file is an error, not a new
// empty database.
Result<std::vector<RunReport>> LoadRunReports(const std::string& path, std::optional<int64_t> run);

// A correct step whose kernel is correct at the task's sizes only (eval/size_checks.h): a run
// that does not let such a kernel be its best (RunSpec::size_specific_best) counts it apart.
bool SizesOnlyStep(const StepRecord& step);

// A correct step compute-sanitizer found errors in, or could not run to the end
// (eval/sanitizer.h): never a task's best.
bool UnsafeStep(const StepRecord& step);

// A correct, timed step that may be a task's best in a run with that setting.
bool CountsForBest(const StepRecord& step, bool size_specific_best);

// The outcome of one task from its steps. Unless `size_specific_best` (the run's setting,
// RunSpec), a kernel correct at the task's sizes only is counted apart, not as the best.
TaskOutcome OutcomeOf(const std::string& task, const std::vector<StepRecord>& steps,
                      bool size_specific_best = false);

nlohmann::json ReportJson(const std::vector<RunReport>& reports);
std::string ReportMarkdown(const std::vector<RunReport>& reports);
std::string ReportCsv(const std::vector<RunReport>& reports);  // One row per run and task.

}  // namespace adaexplore
