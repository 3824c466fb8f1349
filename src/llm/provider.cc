#include "llm/provider.h"

#include <curl/curl.h>
#include <fmt/format.h>

#include <cstdlib>
#include <memory>

#include "llm/provider_registry.h"

namespace adaexplore {
namespace {

constexpr size_t kMaxQuotedServerText = 600;

std::string EnvOr(const std::string& name, const std::string& fallback) {
  const char* value = std::getenv(name.c_str());
  return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

bool IsLoopbackUrl(std::string_view url) {
  for (std::string_view host : {"://localhost", "://127.", "://[::1]", "://0.0.0.0"}) {
    if (url.find(host) != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

// A base URL curl can reach: well formed (libcurl's own parser), http or https, a host, a valid
// port. Anything else is the user's configuration, said before any work starts; a call to it
// would only ever fail, and be retried as if the network were down.
Status CheckBaseUrl(const std::string& url, const std::string& env) {
  const std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> handle(curl_url(), curl_url_cleanup);
  auto bad = [&](std::string_view why) {
    return InvalidArgument(
        fmt::format("the LLM endpoint '{}' ({} or [llm.<provider>] base_url) "
                    "{}",
                    url, env, why));
  };
  if (!handle) {
    return InternalError("out of memory parsing a URL");
  }
  if (const CURLUcode rc = curl_url_set(handle.get(), CURLUPART_URL, url.c_str(), 0);
      rc != CURLUE_OK) {
    return bad(fmt::format("is not a usable URL: {}", curl_url_strerror(rc)));
  }
  char* scheme = nullptr;
  if (curl_url_get(handle.get(), CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK) {
    return bad("has no scheme");
  }
  const std::string scheme_text = scheme;
  curl_free(scheme);
  if (scheme_text != "http" && scheme_text != "https") {
    return bad(fmt::format("has the scheme '{}': use http or https", scheme_text));
  }
  char* host = nullptr;
  const bool has_host = curl_url_get(handle.get(), CURLUPART_HOST, &host, 0) == CURLUE_OK &&
                        host != nullptr && *host != '\0';
  curl_free(host);
  return has_host ? Status::Ok() : bad("names no host");
}

}  // namespace

std::string_view LlmErrorKindName(LlmErrorKind kind) {
  switch (kind) {
    case LlmErrorKind::kTransient:
      return "transient";
    case LlmErrorKind::kAuth:
      return "auth";
    case LlmErrorKind::kBadRequest:
      return "bad_request";
    case LlmErrorKind::kBudget:
      return "budget";
    case LlmErrorKind::kReplayMiss:
      return "replay_miss";
    case LlmErrorKind::kCancelled:
      return "cancelled";
    case LlmErrorKind::kUnreachable:
      return "unreachable";
  }
  return "unknown";
}

Result<ModelSpec> ParseModelSpec(std::string_view text) {
  size_t colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == text.size()) {
    return InvalidArgument(
        fmt::format("model '{}' must be written provider:model, e.g. openai:gpt-5-mini, "
                    "anthropic:claude-sonnet-4-5 or replay:recording.jsonl",
                    text));
  }
  ModelSpec spec{std::string(text.substr(0, colon)), std::string(text.substr(colon + 1))};
  if (FindProvider(spec.provider) == nullptr) {
    return InvalidArgument(fmt::format("unknown provider '{}' in '{}': use {}", spec.provider, text,
                                       KnownProvidersText()));
  }
  return spec;
}

std::optional<Endpoint> ProviderEndpoint(const ProviderSettings& settings) {
  const ProviderInfo* info = FindProvider(settings.name);
  if (info == nullptr || info->make == nullptr) {
    return std::nullopt;
  }
  const std::string from_env = EnvOr(std::string(info->base_url_env), "");
  Endpoint endpoint{.base_url = !settings.base_url.empty() ? settings.base_url
                                : !from_env.empty()        ? from_env
                                                           : std::string(info->public_url),
                    .named = !settings.base_url.empty() || !from_env.empty()};
  while (endpoint.base_url.ends_with('/')) {
    endpoint.base_url.pop_back();
  }
  return endpoint;
}

Result<ProviderSettings> ResolveProviderSettings(ProviderSettings settings) {
  const ProviderInfo* info = FindProvider(settings.name);
  if (info == nullptr || info->make == nullptr) {
    return InvalidArgument("no HTTP provider named '" + settings.name + "'");
  }
  const std::string public_url(info->public_url);
  const std::string base_env(info->base_url_env);
  if (settings.api_key_env.empty()) {
    settings.api_key_env = info->api_key_env;
  }
  if (settings.base_url.empty()) {
    settings.base_url = EnvOr(base_env, public_url);
  }
  while (settings.base_url.ends_with('/')) {
    settings.base_url.pop_back();
  }
  RETURN_IF_ERROR(CheckBaseUrl(settings.base_url, base_env));
  settings.api_key = EnvOr(settings.api_key_env, "");
  // Local servers (vLLM, Ollama, llama.cpp) usually need no key; a public endpoint always does.
  if (settings.api_key.empty() && !IsLoopbackUrl(settings.base_url)) {
    return InvalidArgument(
        fmt::format("{} needs an API key: set {} (or point {} at a local server that needs none)",
                    settings.base_url, settings.api_key_env, base_env));
  }
  if (settings.concurrency < 1 || settings.timeout_s <= 0 || settings.connect_timeout_s <= 0 ||
      settings.max_output_tokens < 1) {
    return InvalidArgument("[llm." + settings.name +
                           "] concurrency, timeouts and max_output_tokens must be positive");
  }
  if (settings.max_tokens_field != "max_completion_tokens" &&
      settings.max_tokens_field != "max_tokens") {
    return InvalidArgument("[llm." + settings.name +
                           "] max_tokens_field must be max_completion_tokens or max_tokens");
  }
  return settings;
}

Result<std::unique_ptr<Provider>> MakeProvider(const ProviderSettings& settings) {
  const ProviderInfo* info = FindProvider(settings.name);
  if (info == nullptr || info->make == nullptr) {
    return InvalidArgument("no HTTP provider named '" + settings.name + "'");
  }
  return info->make(settings);
}

namespace internal {

Status CheckReasoningEffort(const std::string& effort) {
  if (!effort.empty() && effort != "minimal" && effort != "low" && effort != "medium" &&
      effort != "high") {
    return InvalidArgument("reasoning effort must be minimal, low, medium or high, not '" + effort +
                           "'");
  }
  return Status::Ok();
}

LlmError ClassifyNetworkError(const ProviderSettings& settings, const std::string& detail,
                              bool timed_out, int64_t too_large, bool unreachable) {
  if (too_large > 0) {
    return {.kind = LlmErrorKind::kBadRequest,
            .message = fmt::format("{} sent a reply larger than {} MiB; refused (raise [llm] "
                                   "max_reply_mb if this is expected)",
                                   settings.base_url, too_large >> 20)};
  }
  const std::string what =
      timed_out ? fmt::format("no complete reply within {} s ([llm.{}] timeout_s): {}",
                              settings.timeout_s, settings.name, detail)
                : detail;
  return {.kind = LlmErrorKind::kTransient,
          .message = fmt::format("{}: {}", settings.base_url, what),
          .unreachable = unreachable};
}

bool IsJsonContentType(std::string_view content_type) {
  return content_type.find("json") != std::string_view::npos;
}

LlmError ClassifyHttpError(const ProviderSettings& settings, const HttpResponse& response,
                           const std::string& server_message) {
  std::string said = server_message.empty() ? response.body : server_message;
  if (said.size() > kMaxQuotedServerText) {
    said = said.substr(0, kMaxQuotedServerText) + "...";
  }
  LlmError error{
      .kind = LlmErrorKind::kTransient,
      .message = fmt::format("{} answered HTTP {}: {}", settings.base_url, response.status, said),
      .http_status = response.status,
      .retry_after_s = response.retry_after_s};
  const long status = response.status;
  if (status == 401 || status == 403) {
    error.kind = LlmErrorKind::kAuth;
    error.message +=
        fmt::format(" (check {}: the key is missing, wrong or lacks access)", settings.api_key_env);
  } else if (status == 404) {
    error.kind = LlmErrorKind::kBadRequest;
    error.message +=
        " (check the model name in --llm / [llm] model, and the base URL: " + settings.base_url +
        ")";
  } else if (status == 400 || status == 413 || status == 422) {
    error.kind = LlmErrorKind::kBadRequest;
    error.message += fmt::format(
        " (the request as sent cannot succeed; if the server rejects a parameter, see "
        "[llm.{}] max_tokens_field, temperature and reasoning_effort)",
        settings.name);
  }
  // Everything else (408, 409, 429, 5xx, Anthropic's 529, odd codes) may pass on a retry.
  return error;
}

}  // namespace internal
}  // namespace adaexplore
