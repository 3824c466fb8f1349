#pragma once

// `adaexplore adapt`: build a skill memory from failures (the AdaExplore adapt stage).
//
//   adaexplore adapt --llm provider:model --memory OUT.sqlite
//                    [--synthesize N --examples L1_DIR [--layers FILE]] [--task FILE|DIR ...]
//                    [--steps 25] [--parallel 4] [--db PATH] [--tasks-out DIR] [--json]
//
// First, with --synthesize, the LLM writes N new tasks (adapt/synthesis.h) into --tasks-out.
// Then the search runs over all tasks (synthesised and given) in waves of --parallel tasks, the
// reviser off as in the reference; after each wave its compile and runtime failures are
// clustered by signature and turned into rules (adapt/memory_update.h), so tasks of later waves
// see what earlier ones taught. The waves are runs of one search session (the workers start once)
// and share one LLM client, so one budget covers the whole adapt. Every search step is in the run
// database (--db); the memory holds each rule's provenance. Exit 3 when interrupted or out of
// budget (the memory keeps what was learned).

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/search_flags.h"
#include "core/result.h"

namespace adaexplore {

struct AdaptFlags {
  std::string model;
  std::string memory_path;
  int synthesize = 0;
  std::string examples_dir;
  std::string layers_path;
  std::string tasks_out;
  std::vector<std::string> tasks;
  int parallel = 4;
  bool include_incorrect = false;
  double check_timeout_s = 300;
  bool json = false;
  // The searches' settings (steps, seed, evaluation); the waves fill in tasks and memory.
  RunFlags search = [] {
    RunFlags f;
    f.defaults.steps = 25;
    f.defaults.reviser = false;  // As the reference's adaptation runs.
    f.db_path.clear();           // Default: MEMORY.runs.sqlite.
    return f;
  }();
};

void AddAdaptCommand(CLI::App& app, AdaptFlags& flags);
Result<int> RunAdapt(const AdaptFlags& flags);

}  // namespace adaexplore
