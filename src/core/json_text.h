#pragma once

// JSON as text, whatever bytes its strings hold. Strings reach our JSON from files, candidates,
// worker messages and byte-wise truncation; nlohmann's dump() throws on any that is not UTF-8,
// which would end the process. Everything we write goes through JsonText instead.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace adaexplore {

// `value` as JSON text (compact, or indented by `indent` spaces); bytes that are not UTF-8 become
// U+FFFD.
std::string JsonText(const nlohmann::json& value, int indent = -1);

// The offset of the first byte of `text` that does not belong to well-formed UTF-8 (overlong
// forms, surrogates and code points past U+10FFFF included); nullopt when there is none.
std::optional<size_t> FirstInvalidUtf8(std::string_view text);

}  // namespace adaexplore
