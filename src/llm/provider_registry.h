#pragma once

// The providers a model spec can name, one row each: the name users write before the colon, the
// public endpoint and the variables that override it and hold the key, and the factory of its
// wire format (openai_provider.h, anthropic_provider.h). `replay` answers from a recording and
// has no HTTP side (no factory). Everything that asks "which providers are there", "where is this
// one" or "is this a replay" asks this table (ModelSpec::replayed() for the last). A new provider
// is its wire format's files and its row here.

#include <array>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "llm/provider.h"

namespace adaexplore {

struct ProviderInfo {
  std::string_view name;          // "openai": as in "openai:gpt-5-mini" and [llm.openai].
  std::string_view what;          // How the error for an unknown provider describes it.
  std::string_view public_url;    // Empty: no HTTP endpoint (replay).
  std::string_view base_url_env;  // The variable that overrides public_url.
  std::string_view api_key_env;   // The variable holding the key, unless [llm.<name>] says.
  // The wire format; null for replay.
  std::unique_ptr<Provider> (*make)(const ProviderSettings& settings) = nullptr;
};

const std::array<ProviderInfo, 3>& Providers();

// The row named `name`; null when there is none.
const ProviderInfo* FindProvider(std::string_view name);

// Default settings for every provider with an HTTP side, by name (LlmOptions::providers).
std::map<std::string, ProviderSettings> DefaultProviderSettings();

// "openai (any OpenAI-compatible server, with OPENAI_BASE_URL), anthropic or replay".
std::string KnownProvidersText();

}  // namespace adaexplore
