#pragma once

// Everything the LLM layer is configured by, as the config file's [llm] tables and the CLI fill
// it in (config/config.h documents the keys). Defaults are what a user with one API key wants.

#include <cstdint>
#include <map>
#include <string>

#include "llm/ledger.h"
#include "llm/provider.h"
#include "llm/provider_registry.h"
#include "llm/retry.h"
#include "llm/role_models.h"

namespace adaexplore {

struct LlmOptions {
  std::string model;  // "provider:model" used when a command does not say (--llm wins).
  RoleModels roles;   // [llm.roles]: roles given a model other than `model`.
  // Per provider with an HTTP side (llm/provider_registry.h): endpoint, key variable,
  // concurrency, timeouts.
  std::map<std::string, ProviderSettings> providers = DefaultProviderSettings();
  RetryPolicy retry;
  PriceTable prices;
  Budget budget;
  // Bigger replies are refused as they stream, never buffered, written into prompts or stored:
  // a kernel and its reasoning fit in far less.
  int64_t max_reply_bytes = int64_t{2} << 20;
  // A run stops (an error naming the endpoint and the last errors) after this many LLM calls in
  // a row failed, each after its retries; 0: never. A dead endpoint is not a search result.
  int max_failures_in_a_row = 10;
  bool cache_enabled = true;
  std::string cache_path;   // Empty: $XDG_CACHE_HOME/adaexplore/llm-cache.sqlite.
  std::string record_path;  // Non-empty: append every live or cached exchange here.
};

}  // namespace adaexplore
