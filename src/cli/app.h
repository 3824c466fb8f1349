#pragma once

// The command line: parses argv and runs the chosen command. main() only calls RunCli and turns
// its result into an exit code; the library never exits on its own.

#include "core/result.h"

namespace adaexplore {

// Exit codes: 0 success, 1 a failure during the run, 2 bad usage or configuration, 130 interrupted.
int ExitCodeFor(const Status& status);

Result<int> RunCli(int argc, char** argv);

}  // namespace adaexplore
