#pragma once

// Anthropic Messages (POST {base}/v1/messages). System messages move to the top-level `system`
// field; a reasoning effort becomes an extended-thinking budget carved out of max_tokens.

#include "llm/provider.h"

namespace adaexplore {

class AnthropicProvider : public Provider {
 public:
  static constexpr std::string_view kApiVersion = "2023-06-01";

  explicit AnthropicProvider(ProviderSettings settings) : settings_(std::move(settings)) {}

  const ProviderSettings& settings() const override { return settings_; }
  Result<HttpRequest> Build(const ChatRequest& request) const override;
  ParsedReply Parse(const HttpResponse& response) const override;

 private:
  ProviderSettings settings_;
};

}  // namespace adaexplore
