#pragma once

// --suite NAME --problem IDS [--suite-dir DIR]: tasks addressed by their benchmark's numbering
// (task/problems.h), for `eval` and `run`.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "core/result.h"

namespace adaexplore {

struct ProblemFlags {
  std::string suite;
  std::string problems;
  std::string suite_dir;  // Empty: ../shared/data/<suite> beside the project.
};

void AddProblemFlags(CLI::App* command, ProblemFlags& f);

// The task files the flags name; none when neither --suite nor --problem was given, an error
// when only one was.
Result<std::vector<std::string>> ProblemTaskFiles(const ProblemFlags& f);

}  // namespace adaexplore
