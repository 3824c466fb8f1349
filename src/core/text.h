#pragma once

// Small text helpers that parsers across the project share: case folding, trimming, lines.

#include <string>
#include <string_view>
#include <vector>

namespace adaexplore {

// ASCII lower case.
std::string Lower(std::string_view text);

// `text` without leading and trailing characters from `chars` (whitespace by default).
std::string_view Trim(std::string_view text, std::string_view chars = " \t\r\n\f\v");

// The lines of `text`, without their '\n'; a final line break does not start another line.
std::vector<std::string_view> SplitLines(std::string_view text);

}  // namespace adaexplore
