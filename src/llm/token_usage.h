#pragma once

// Token counts as an LLM endpoint reports them, made safe to price, sum and store. A faulty
// endpoint (or a recording or cache entry written by an earlier build) can put any JSON value
// where a count belongs: a negative number, a fraction, a string, 2^63-1. Such a count would
// reach the ledger, the budget and the run database, whose sums then overflow ("integer
// overflow" in SQLite: the database can no longer be reported on or resumed). So every count a
// reply carries is read here, once, where the reply is parsed (the providers, the recording, the
// response cache), and what had to be changed is said as a warning, never silently.
//
// Pure functions; thread-safe.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "llm/chat.h"

namespace adaexplore {

// The most tokens one call can plausibly use or produce; today's largest context windows are a
// few million tokens. A count above it is a faulty report, counted as this ceiling: a budget
// then stops the run rather than letting a lying endpoint spend for free.
inline constexpr int64_t kMaxTokensPerCall = 1'000'000'000;

// object[key] as a token count. Absent or null: 0, silently (servers differ in what they report).
// Above kMaxTokensPerCall: the ceiling; negative, fractional or not a number: 0; each of those
// with a warning naming the key and the value appended to `warnings`.
int64_t TokenCountField(const nlohmann::json& object, std::string_view key,
                        std::vector<std::string>& warnings);

// Brings `usage` within its bounds: every count in [0, kMaxTokensPerCall], the cached part of
// the input no larger than the input, the part written to the cache no larger than the rest,
// the reasoning part of the output no larger than the output. For counts made by adding
// reported parts (Anthropic's input is three of them).
void ClampTokenUsage(TokenUsage& usage, std::vector<std::string>& warnings);

// The usage as recordings, the response cache, the run database and `llm --json` keep it:
// {"input", "output", "cached_input", "cache_write", "reasoning"}.
nlohmann::json TokenUsageJson(const TokenUsage& usage);

// TokenUsageJson's object read back, every count checked as a reply's are (absent: 0, from
// entries of builds that did not write it) and the whole clamped.
TokenUsage TokenUsageFromJson(const nlohmann::json& usage, std::vector<std::string>& warnings);

}  // namespace adaexplore
