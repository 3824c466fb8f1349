#pragma once

// How eval results are shown: one human line (plus detail when asked), or one JSON object per
// line for scripts. JSON field names (verdict, reason, speedup, ...) are a stable interface.

#include <string>

#include "eval/verdict.h"

namespace adaexplore {

enum class Detail { kBrief, kFull };

std::string FormatHuman(const EvalResult& result, Detail detail);
std::string FormatJsonLine(const EvalResult& result);

// "3 candidates: 2 correct, 1 incorrect".
std::string FormatSummary(const std::vector<EvalResult>& results);

}  // namespace adaexplore
