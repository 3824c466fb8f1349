#pragma once

// --level N --problem IDS, or --suite NAME --problem IDS [--suite-dir DIR]: tasks addressed by
// their benchmark's numbering (task/problems.h), for `eval`, `run` and `bench`.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "core/result.h"

namespace adaexplore {

struct ProblemFlags {
  std::string suite;  // Empty with a --level: kernelbench.
  int level = 0;      // KernelBench's level; 0: none given.
  std::string problems;
  std::string suite_dir;  // Empty: ../shared/data/<suite> beside the project.
};

void AddProblemFlags(CLI::App* command, ProblemFlags& f);

// The task files the flags name; none when none of them was given, an error naming what is
// missing when only some were.
Result<std::vector<std::string>> ProblemTaskFiles(const ProblemFlags& f);

}  // namespace adaexplore
