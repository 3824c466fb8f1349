#pragma once

// Provider: translates a ChatRequest into an HTTP request for one API and an HTTP response back
// into a ChatReply or an LlmError that says whether trying again can help. Providers are pure
// (no I/O, no state), so they are tested on canned bodies; the client (client.h) does the HTTP.
//
// Errors are classified once, here, for every provider:
//   transient     429, 408, 409, 5xx, 529, a reset or timed-out connection, a truncated or
//                 non-JSON body: retried with backoff, honouring Retry-After.
//   auth          401, 403: every later call would fail too; the provider is stopped and the
//                 message names the variable to fix.
//   bad_request   400, 404, 413, 422: this request cannot succeed as sent; the message carries
//                 the server's own words and names the setting to fix.

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/result.h"
#include "llm/chat.h"

namespace adaexplore {

enum class LlmErrorKind {
  kTransient,   // Retried; reported only once retries are exhausted.
  kAuth,        // Stops the provider for the rest of the run.
  kBadRequest,  // This request fails; others go on.
  kBudget,      // The run's budget is spent; nothing more is sent.
  kReplayMiss,  // The replay provider has no reply recorded for this request.
  kCancelled,   // The client shut down before the call finished.
  // The endpoint was never reached (no such host, connection refused) and has not answered
  // this run: stops the provider after a few quick tries, as a wrong port should.
  kUnreachable,
};

std::string_view LlmErrorKindName(LlmErrorKind kind);

struct LlmError {
  LlmErrorKind kind = LlmErrorKind::kTransient;
  std::string message;                  // Never contains an API key (see secrets.h).
  long http_status = 0;                 // 0: no HTTP status (network error, replay, budget).
  std::optional<double> retry_after_s;  // From the server's Retry-After header.
  bool unreachable = false;             // No connection at all: no host, or it was refused.
};

// How to reach one provider. Filled from defaults, the config file's [llm.<provider>] table and
// the environment (ResolveProviderSettings); the key itself only ever lives here.
struct ProviderSettings {
  std::string name;         // "openai", "anthropic".
  std::string base_url;     // Empty: the env variable (OPENAI_BASE_URL, ANTHROPIC_BASE_URL),
                            // then the public endpoint.
  std::string api_key_env;  // Empty: OPENAI_API_KEY / ANTHROPIC_API_KEY.
  std::string api_key;      // Resolved from api_key_env; empty for keyless local servers.
  int concurrency = 16;     // Requests in flight at once to this provider.
  double timeout_s = 900;   // Whole request, including a long reasoning phase.
  double connect_timeout_s = 15;
  int64_t max_output_tokens = 32768;  // When the request does not say.
  // OpenAI-compatible only: the body field for the output limit. "max_completion_tokens" (OpenAI
  // reasoning models, recent vLLM) or "max_tokens" (older servers, llama.cpp).
  std::string max_tokens_field = "max_completion_tokens";
};

struct HttpRequest {
  std::string url;
  std::vector<std::string> headers;  // "Name: value". Holds the key: never log these.
  std::string body;
};

struct HttpResponse {
  long status = 0;
  std::string content_type;
  std::string body;
  std::optional<double> retry_after_s;
};

using ParsedReply = std::variant<ChatReply, LlmError>;

class Provider {
 public:
  virtual ~Provider() = default;
  virtual const ProviderSettings& settings() const = 0;
  // The HTTP request for `request`; an error when the request cannot be expressed (no user
  // message, an unknown reasoning effort).
  virtual Result<HttpRequest> Build(const ChatRequest& request) const = 0;
  // The reply in a 2xx response, or the classified error of any response.
  virtual ParsedReply Parse(const HttpResponse& response) const = 0;
};

// Defaults for `name`, then the environment: base URL and key. A provider whose public endpoint
// needs a key and has none is an error naming the variable, found before any request is sent.
Result<ProviderSettings> ResolveProviderSettings(ProviderSettings settings);

// Where a provider's requests go, and whether the user named it (the configuration's base_url,
// or the environment variable) rather than left the public endpoint; unset for a provider with
// no HTTP side (replay). Reads no key.
struct Endpoint {
  std::string base_url;
  bool named = false;
};
std::optional<Endpoint> ProviderEndpoint(const ProviderSettings& settings);

// The wire format of settings.name (a row of llm/provider_registry.h with one).
Result<std::unique_ptr<Provider>> MakeProvider(const ProviderSettings& settings);

// "openai:gpt-5-mini" -> {openai, gpt-5-mini}. The provider must be a row of
// llm/provider_registry.h.
Result<ModelSpec> ParseModelSpec(std::string_view text);

namespace internal {
// The shared classification of a non-2xx response; `server_message` is what the provider's error
// body says (may be empty).
LlmError ClassifyHttpError(const ProviderSettings& settings, const HttpResponse& response,
                           const std::string& server_message);
// The error of a transfer that ended without an HTTP response: `detail` is the transport's own
// message, `timed_out` when the whole-request limit hit, `too_large` > 0 when the reply grew past
// that many bytes (refused: a bad request, not retried), `unreachable` when no connection was
// made at all (no such host, connection refused).
LlmError ClassifyNetworkError(const ProviderSettings& settings, const std::string& detail,
                              bool timed_out, int64_t too_large, bool unreachable = false);
// True when the content type is JSON (some gateways send HTML error pages with status 200).
bool IsJsonContentType(std::string_view content_type);
// An error unless `effort` is empty, minimal, low, medium or high.
Status CheckReasoningEffort(const std::string& effort);
}  // namespace internal

}  // namespace adaexplore
