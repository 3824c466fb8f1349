#pragma once

// OpenAI-compatible Chat Completions (POST {base}/chat/completions): OpenAI itself and the servers
// that speak its dialect (vLLM, SGLang, Ollama, llama.cpp server, gateways). Reasoning models get
// `max_completion_tokens` and `reasoning_effort` and no temperature unless one is asked for.

#include "llm/provider.h"

namespace adaexplore {

class OpenAiProvider : public Provider {
 public:
  explicit OpenAiProvider(ProviderSettings settings) : settings_(std::move(settings)) {}

  const ProviderSettings& settings() const override { return settings_; }
  Result<HttpRequest> Build(const ChatRequest& request) const override;
  ParsedReply Parse(const HttpResponse& response) const override;

 private:
  ProviderSettings settings_;
};

}  // namespace adaexplore
