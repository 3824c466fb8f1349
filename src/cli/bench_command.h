#pragma once

// `adaexplore bench`: a search over a whole suite with one or more methods, then the report.
//
//   adaexplore bench --suite DIR|kernelbench:level2 [--kernelbench DIR] [--limit K]
//                    --method adaexplore,ps,ir --steps N --llm provider:model
//                    [--db bench.sqlite] [--json] [--html FILE]  (and run's evaluation flags)
//
// Each method is one run over every task of the suite (tasks side by side, LLM calls overlapping
// evaluations), all in one run database and one search session: the workers start once. Runs are
// labelled by suite, method, model and steps; running the same bench again resumes each unfinished
// run and leaves finished ones alone, so a bench killed at any point is continued by repeating its
// command. At the end the report of the bench's runs is printed (report/run_report.h): Markdown, or
// JSON with --json.
//
// Before the searches each task's own Model is timed alone, eager and under torch.compile
// (eval/baseline.h), once per task, GPU model, software and profile: the result cache answers a
// repeated bench, and the report compares the best kernels with torch.compile.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/search_flags.h"
#include "core/result.h"
#include "suite/suite.h"

namespace adaexplore {

struct BenchFlags {
  std::string suite;  // A folder, or kernelbench:levelN (what --level N sets).
  std::string kernelbench_dir;
  int level = 0;             // --level N: kernelbench:levelN.
  std::string problems;      // --problem IDS: only those problem numbers (task/problems.h).
  std::optional<int> limit;  // Unset: every task.
  std::vector<std::string> methods = {"adaexplore"};
  std::string html;
  bool json = false;
  std::string baseline = "compile";  // compile, eager, none.
  bool refresh_baselines = false;
  // Unset: the reference's, 0.5 on kernelbench:level3 and 1 elsewhere.
  std::optional<double> expand_ratio;
  RunFlags search = [] {
    RunFlags f;
    f.db_path = "adaexplore-bench.sqlite";
    f.out_dir = "adaexplore-bench-out";
    return f;
  }();
};

void AddBenchCommand(CLI::App& app, BenchFlags& flags);
Result<int> RunBench(const BenchFlags& flags);

// c_e / c for the bench's searches: --expand-ratio, else the reference's (0.5 on KernelBench
// Level 3, 1 elsewhere).
double BenchExpandRatio(const BenchFlags& flags);

}  // namespace adaexplore
