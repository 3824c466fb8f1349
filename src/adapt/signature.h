#pragma once

// Error signatures: the part of a compile or runtime error that says what went wrong, with
// everything that only says where (addresses, line and column numbers, file paths, numbers,
// program names in quotes) replaced by placeholders. Failures with one signature are one mistake
// made several times, so one LLM call can write the rule for all of them (the reference spends one
// call per failure).
//
//   "  File \"/tmp/x/k.py\", line 41, in forward\nNameError: name 'PADDING_LEFT' is not defined"
//     -> "NameError: name '<name>' is not defined"

#include <string>
#include <string_view>
#include <vector>

namespace adaexplore {

// The decisive line of `error` (the last "Kind: message" line of a traceback, else the last
// non-empty line), normalised as above and cut to 240 characters. Empty for an empty error.
std::string ErrorSignature(std::string_view error);

// `text` with addresses, paths, numbers and quoted names replaced, whitespace collapsed.
std::string NormaliseErrorText(std::string_view text);

// Failures grouped by signature: indices into the input, groups in order of first appearance,
// each group's indices in input order.
struct SignatureGroup {
  std::string signature;
  std::vector<size_t> members;
};
std::vector<SignatureGroup> GroupBySignature(const std::vector<std::string>& signatures);

}  // namespace adaexplore
