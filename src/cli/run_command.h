#pragma once

// `adaexplore run`: the search over one task or a folder of tasks.
//
//   adaexplore run --task T.py|DIR --llm provider:model [--method adaexplore|ps|ir|irl|irb|irle]
//   [--steps N]
//                  [--memory FILE] [--profile P] [--language triton|cuda] [--db PATH]
//                  [--resume] [--out DIR] [--json]
//
// Every step goes to the run database as it completes; `--resume` continues the database's
// latest run (or --run ID) with its own method, model, budget and tasks. At the end each task's
// best kernel is written to --out as <task>.py, with summary.json beside them.

#include <CLI/CLI.hpp>

#include "cli/search_flags.h"
#include "core/result.h"

namespace adaexplore {

void AddRunCommand(CLI::App& app, RunFlags& flags);

// Exit code 0 when every task reached its step budget, 3 when the run stopped early (budget).
Result<int> RunSearch(const RunFlags& flags);

}  // namespace adaexplore
