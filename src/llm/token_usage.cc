#include "llm/token_usage.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/json_text.h"

namespace adaexplore {
namespace {

constexpr size_t kMaxQuotedValue = 80;  // A string "count" is quoted this far in a warning.

std::string Quoted(const nlohmann::json& value) {
  std::string text = JsonText(value);
  if (text.size() > kMaxQuotedValue) {
    text = text.substr(0, kMaxQuotedValue) + "...";
  }
  return text;
}

// `value` into [0, ceiling], saying so under `name` when it was outside.
int64_t Bounded(int64_t value, int64_t ceiling, std::string_view name,
                std::vector<std::string>& warnings) {
  if (value < 0) {
    warnings.push_back(fmt::format("{} = {} is negative; counted as 0", name, value));
    return 0;
  }
  if (value > ceiling) {
    warnings.push_back(
        fmt::format("{} = {} is above {}; counted as {}", name, value, ceiling, ceiling));
    return ceiling;
  }
  return value;
}

}  // namespace

int64_t TokenCountField(const nlohmann::json& object, std::string_view key,
                        std::vector<std::string>& warnings) {
  if (!object.is_object()) {
    return 0;
  }
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    return 0;
  }
  const std::string name = fmt::format("the reply's token count {}", key);
  if (it->is_number_unsigned()) {
    // Beyond int64_t's range nlohmann keeps it unsigned; anything there is above the ceiling.
    const uint64_t count = it->get<uint64_t>();
    if (count > static_cast<uint64_t>(kMaxTokensPerCall)) {
      warnings.push_back(fmt::format("{} = {} is above {}; counted as {}", name, count,
                                     kMaxTokensPerCall, kMaxTokensPerCall));
      return kMaxTokensPerCall;
    }
    return static_cast<int64_t>(count);
  }
  if (it->is_number_integer()) {
    return Bounded(it->get<int64_t>(), kMaxTokensPerCall, name, warnings);
  }
  warnings.push_back(fmt::format("{} = {} is not a whole number; counted as 0", name, Quoted(*it)));
  return 0;
}

void ClampTokenUsage(TokenUsage& usage, std::vector<std::string>& warnings) {
  usage.input = Bounded(usage.input, kMaxTokensPerCall, "input tokens", warnings);
  usage.output = Bounded(usage.output, kMaxTokensPerCall, "output tokens", warnings);
  usage.cached_input = Bounded(usage.cached_input, usage.input, "cached input tokens", warnings);
  usage.cache_write = Bounded(usage.cache_write, usage.input - usage.cached_input,
                              "input tokens written to the cache", warnings);
  usage.reasoning = Bounded(usage.reasoning, usage.output, "reasoning tokens", warnings);
}

nlohmann::json TokenUsageJson(const TokenUsage& usage) {
  return {{"input", usage.input},
          {"output", usage.output},
          {"cached_input", usage.cached_input},
          {"cache_write", usage.cache_write},
          {"reasoning", usage.reasoning}};
}

TokenUsage TokenUsageFromJson(const nlohmann::json& usage, std::vector<std::string>& warnings) {
  TokenUsage out{.input = TokenCountField(usage, "input", warnings),
                 .output = TokenCountField(usage, "output", warnings),
                 .cached_input = TokenCountField(usage, "cached_input", warnings),
                 .cache_write = TokenCountField(usage, "cache_write", warnings),
                 .reasoning = TokenCountField(usage, "reasoning", warnings)};
  ClampTokenUsage(out, warnings);
  return out;
}

}  // namespace adaexplore
