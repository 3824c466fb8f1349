#pragma once

// What a user who mistyped a flag or a command most likely meant, for the usage error.

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace adaexplore {

// The closest of `known` to `typed` by edit distance, when close enough to be a typo ("" if none
// is): within a third of its length, at least 2.
std::string Closest(std::string_view typed, const std::vector<std::string>& known);

// "did you mean ...?" lines for the arguments of `argv` that the deepest subcommand `app` parsed
// does not know: flags against its flags, a first word against the commands.
std::string DidYouMean(const CLI::App& app, const std::vector<std::string>& argv);

}  // namespace adaexplore
