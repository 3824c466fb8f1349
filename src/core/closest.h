#pragma once

// What a user who mistyped a name (a flag, a command, a config key) most likely meant.
//
//   Closest("--trails", {"--trials", "--timeout"}) == "--trials"
//   DidYouMeanSuffix("trails", keys) == " (did you mean 'trials'?)" or ""

#include <string>
#include <string_view>
#include <vector>

namespace adaexplore {

// The closest of `known` to `typed` by edit distance, when close enough to be a typo ("" if none
// is): within a third of its length, at least 2.
std::string Closest(std::string_view typed, const std::vector<std::string>& known);

// " (did you mean 'x'?)" for the closest of `known`, or "" when none is close.
std::string DidYouMeanSuffix(std::string_view typed, const std::vector<std::string>& known);

}  // namespace adaexplore
