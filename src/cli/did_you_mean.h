#pragma once

// What a user who mistyped a flag or a command most likely meant, for the usage error.

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/closest.h"

namespace adaexplore {

// "did you mean ...?" lines for the arguments of `argv` that the deepest subcommand `app` parsed
// does not know: flags against its flags, a first word against the commands.
std::string DidYouMean(const CLI::App& app, const std::vector<std::string>& argv);

}  // namespace adaexplore
