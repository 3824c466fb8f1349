#pragma once

// `adaexplore report` and `adaexplore export`: what a run database says, for people and for
// other harnesses.
//
//   adaexplore report RUN_DB [--run ID] [--json | --csv] [--out FILE] [--html FILE]
//   adaexplore export RUN_DB --out DIR [--run ID] [--level N]
//
// report prints the metrics per method and per run (Acc, Speedup capped at 10, Fast@1.2, Fast@2,
// geomean, KernelBench's fast_p, compile and correct rates, tokens, cost, evaluation hours) and
// each task's best, as Markdown; --html also writes the HTML report (report/html_report.h); --json
// with the metrics under acc, speedup, fast_1.2, fast_2, geomean; --csv one row per run and task.
// export writes each task's best correct kernel in KernelBench's layout (app/export_run.h),
// level_<L>_problem_<P>_sample_0_kernel.py, L from the task's stored path unless --level says.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "core/result.h"

namespace adaexplore {

struct ReportFlags {
  std::string db_path;
  int64_t run = 0;
  bool json = false;
  bool csv = false;
  std::string out;
  std::string html;
  std::optional<int> level;  // Unset: each task's own, from its stored path (levelN/...).
};

struct ReportCommands {
  CLI::App* report = nullptr;
  CLI::App* export_ = nullptr;
};

ReportCommands AddReportCommands(CLI::App& app, ReportFlags& flags);
Result<int> RunReportCommand(const ReportFlags& flags);
Result<int> RunExport(const ReportFlags& flags);

}  // namespace adaexplore
