#pragma once

// The levelled log: spdlog loggers passed through options structs (never looked up globally), so
// tests can hand a component a logger that writes to a string. The log is for people debugging a
// run; results go to the run database and the terminal output, never only to the log.

#include <spdlog/spdlog.h>

#include <memory>
#include <string_view>

#include "core/result.h"

namespace adaexplore {

using Logger = std::shared_ptr<spdlog::logger>;

// A logger writing to stderr at `level` ("trace" … "off"). Colour only when stderr is a terminal
// and NO_COLOR is unset.
Result<Logger> MakeStderrLogger(std::string_view level);

// A logger that drops everything (the default for components built in tests).
Logger NullLogger();

}  // namespace adaexplore
