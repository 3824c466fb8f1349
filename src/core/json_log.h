#pragma once

// The log as JSON lines, for a command's --json: each record one object on its own line of
// stderr, {"event": "log", "level": "warning", "message": "..."}, beside the command's progress
// lines (ui/status_line.h), so that a program reading stderr meets nothing else.

#include <string_view>

#include "core/log.h"
#include "core/result.h"

namespace adaexplore {

// MakeStderrLogger's logger at `level`, writing JSON lines instead of text.
Result<Logger> MakeStderrJsonLogger(std::string_view level);

// One of the two, as a command's --json says.
Result<Logger> MakeCommandLogger(std::string_view level, bool json);

}  // namespace adaexplore
