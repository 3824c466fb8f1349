#pragma once

// The data of one LLM call, independent of any provider: the request the search builds (model,
// messages, limits, the role it plays and the task it is for) and the reply it gets back (text,
// token usage, why generation stopped). Plain structs; providers translate them to and from
// their wire formats (openai_provider.h, anthropic_provider.h).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace adaexplore {

// Who in the method makes a call; the ledger sums cost per role.
enum class LlmRole { kProposer, kReviser, kTuner, kRuleWriter, kJudge, kSynthesiser, kOther };

std::string_view LlmRoleName(LlmRole role);
// "proposer", "rule_writer", ...; nullopt for an unknown name.
std::optional<LlmRole> LlmRoleFromName(std::string_view name);

// "provider:model", as users write it on the command line and in the config file. For the replay
// provider the model part is the recording file.
// The provider that answers from a recording (llm/provider_registry.h lists them all).
inline constexpr std::string_view kReplayProvider = "replay";

struct ModelSpec {
  std::string provider;  // A row of llm/provider_registry.h: "openai", "anthropic", "replay".
  std::string model;     // "gpt-5-mini", "claude-sonnet-4-5", "runs/demo.jsonl".
  std::string ToString() const { return provider + ":" + model; }
  // Whether replies come from a recording: no LLM is called.
  bool replayed() const { return provider == kReplayProvider; }
};

struct ChatMessage {
  std::string role;  // "system", "user" or "assistant".
  std::string content;
  // How many leading bytes of `content` repeat in every call of this role for a task (the task,
  // its rules and notes: prompt/prompts.h), so that a provider's prompt cache can keep them: an
  // Anthropic request marks a cache breakpoint there; OpenAI caches a stable prefix by itself.
  // 0: no mark. Not part of a recording's or the response cache's key.
  size_t cache_prefix = 0;
};

struct ChatRequest {
  ModelSpec model;
  std::vector<ChatMessage> messages;
  int64_t max_output_tokens = 0;      // 0: the provider setting's default.
  std::optional<double> temperature;  // Unset: the provider's default (reasoning models
                                      // refuse any other).
  std::string reasoning_effort;       // "", "low", "medium", "high" (OpenAI reasoning models;
                                      // Anthropic: a thinking budget).
  int64_t sample = 0;                 // Which sample of this exact prompt; part of the cache
                                      // and recording keys, so repeated sampling stays diverse.
  LlmRole role = LlmRole::kOther;
  std::string task;  // The task the call is for (ledger), may be empty.
};

struct TokenUsage {
  int64_t input = 0;
  int64_t output = 0;        // Includes reasoning tokens, which are billed as output.
  int64_t cached_input = 0;  // Part of `input` served from the provider's prompt cache.
  // Part of `input` written into the provider's prompt cache on this call (Anthropic's
  // cache_creation_input_tokens, billed above plain input); never the cached part.
  int64_t cache_write = 0;
  int64_t reasoning = 0;  // Part of `output`, where the provider reports it.
};

struct ChatReply {
  std::string text;
  TokenUsage usage;
  std::string finish_reason;  // "stop", "length", ... as the provider says it.
  std::string served_model;   // The model the provider says answered.
  // What was wrong with the reply without making it unusable (token counts out of range,
  // llm/token_usage.h), for the client to log. Not cached or recorded.
  std::vector<std::string> warnings;
};

}  // namespace adaexplore
