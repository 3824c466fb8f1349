#pragma once

// The [llm] part of the configuration file:
//
//   [llm]
//   model = "openai:gpt-5-mini"      # provider:model; --llm overrides
//   max_attempts = 8                 # retries: first try included
//   initial_backoff_s = 1.0
//   max_backoff_s = 60.0
//   max_retry_after_s = 300.0
//   max_reply_mb = 2
//   max_failures_in_a_row = 10       # failed calls (after retries) that stop a run; 0: never
//   budget_usd = 0.0                 # 0: no limit (needs prices for every model used)
//   budget_tokens = 0                # 0: no limit
//   cache = true                     # the response cache
//   cache_path = ""                  # default $XDG_CACHE_HOME/adaexplore/llm-cache.sqlite
//   record = ""                      # append every exchange to this recording
//
//   [llm.openai]                     # and [llm.anthropic]
//   base_url = ""                    # default: $OPENAI_BASE_URL, then the public endpoint
//   api_key_env = "OPENAI_API_KEY"   # the variable holding the key (never the key itself)
//   concurrency = 16
//   timeout_s = 900
//   connect_timeout_s = 15
//   max_output_tokens = 32768
//   max_tokens_field = "max_completion_tokens"   # or "max_tokens" for older servers
//
//   [llm.roles]                      # a model for a role; the others use [llm] model
//   tuner = "openai:gpt-5-mini"      # also proposer, reviser, rule_writer, judge, synthesiser
//
//   [llm.prices."openai:gpt-5-mini"] # dollars per million tokens
//   input_per_mtok = 0.25
//   cached_input_per_mtok = 0.025
//   cache_write_per_mtok = 0.25                  # Anthropic: 1.25 times input
//   output_per_mtok = 2.0
//
// The keys are declared once, in llm/settings.h and llm/role_models.h (docs/configuration.md's
// settings table lists them all). Unknown keys are errors, as everywhere in the configuration.

#include <toml++/toml.h>

#include <string>

#include "core/result.h"
#include "llm/options.h"

namespace adaexplore {

Status ApplyLlmConfig(const toml::table& root, const std::string& origin, LlmOptions& options);

}  // namespace adaexplore
