#pragma once

// How eval results are shown, by the CLI and the MCP tools alike: one human line (plus detail
// when asked), or one JSON object (eval --json's line, an MCP tool's structured result). JSON
// field names (verdict, reason, speedup, ...) are a stable interface.

#include <nlohmann/json.hpp>
#include <string>

#include "eval/verdict.h"

namespace adaexplore {

enum class Detail { kBrief, kFull };

std::string FormatHuman(const EvalResult& result, Detail detail);
// The result as its JSON object: the verdict's fields, and `details` (a readable summary of the
// facts: phases, trials, the judge, the timing's runs) instead of the raw facts.
nlohmann::json ResultJson(const EvalResult& result);
// ResultJson as one line of text, ending in a newline.
std::string FormatJsonLine(const EvalResult& result);

// "3 candidates: 2 correct, 1 incorrect".
std::string FormatSummary(const std::vector<EvalResult>& results);

}  // namespace adaexplore
