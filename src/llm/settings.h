#pragma once

// The LLM layer's settings as tables (core/setting.h), the [llm] part of the configuration file:
// the top-level [llm] keys (model, retries, reply size, circuit breaker, budget, response cache,
// recording), the keys of each provider's table ([llm.openai], [llm.anthropic]) and of a price
// ([llm.prices."provider:model"]). The config reader (config/llm_config.h) and the settings table
// of docs/configuration.md are made from them.
//
//   RETURN_IF_ERROR(ApplySettings(LlmSettingTable(), {{"max_attempts", 3}}, options, "[llm]"));

#include <vector>

#include "core/setting.h"
#include "llm/ledger.h"
#include "llm/options.h"
#include "llm/provider.h"

namespace adaexplore {

const std::vector<Setting<LlmOptions>>& LlmSettingTable();
const std::vector<Setting<ProviderSettings>>& ProviderSettingTable();
const std::vector<Setting<Price>>& PriceSettingTable();

}  // namespace adaexplore
