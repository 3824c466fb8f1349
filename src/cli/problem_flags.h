#pragma once

// --level N --problem IDS, or --suite NAME --problem IDS [--suite-dir DIR]: tasks addressed by
// their benchmark's numbering (app/problem_selection.h), for `eval`, `run` and `bench`.

#include <CLI/CLI.hpp>

#include "app/problem_selection.h"

namespace adaexplore {

void AddProblemFlags(CLI::App* command, ProblemSelection& f);

}  // namespace adaexplore
