#include "llm/provider_registry.h"

#include <string>

#include "llm/anthropic_provider.h"
#include "llm/openai_provider.h"

namespace adaexplore {
namespace {

template <typename P>
std::unique_ptr<Provider> Make(const ProviderSettings& settings) {
  return std::make_unique<P>(settings);
}

}  // namespace

const std::array<ProviderInfo, 3>& Providers() {
  static const std::array<ProviderInfo, 3> providers = {{
      {.name = "openai",
       .what = "openai (any OpenAI-compatible server, with OPENAI_BASE_URL)",
       .public_url = "https://api.openai.com/v1",
       .base_url_env = "OPENAI_BASE_URL",
       .api_key_env = "OPENAI_API_KEY",
       .make = Make<OpenAiProvider>},
      {.name = "anthropic",
       .what = "anthropic",
       .public_url = "https://api.anthropic.com",
       .base_url_env = "ANTHROPIC_BASE_URL",
       .api_key_env = "ANTHROPIC_API_KEY",
       .make = Make<AnthropicProvider>},
      {.name = std::string_view(kReplayProvider), .what = "replay"},
  }};
  return providers;
}

const ProviderInfo* FindProvider(std::string_view name) {
  for (const ProviderInfo& info : Providers()) {
    if (info.name == name) {
      return &info;
    }
  }
  return nullptr;
}

std::map<std::string, ProviderSettings> DefaultProviderSettings() {
  std::map<std::string, ProviderSettings> settings;
  for (const ProviderInfo& info : Providers()) {
    if (info.make != nullptr) {
      settings.emplace(info.name, ProviderSettings{.name = std::string(info.name)});
    }
  }
  return settings;
}

std::string KnownProvidersText() {
  std::string text;
  const auto& all = Providers();
  for (size_t i = 0; i < all.size(); ++i) {
    text += i == 0 ? "" : i + 1 == all.size() ? " or " : ", ";
    text += all[i].what;
  }
  return text;
}

}  // namespace adaexplore
