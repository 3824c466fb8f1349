#include "llm/anthropic_provider.h"

#include <nlohmann/json.hpp>
#include <string_view>

#include "core/json_text.h"
#include "llm/token_usage.h"

namespace adaexplore {
namespace {

using nlohmann::json;

// Extended-thinking budgets for the effort levels, capped below max_tokens.
int64_t ThinkingBudget(std::string_view effort, int64_t max_tokens) {
  int64_t budget = effort == "high" ? 16384 : effort == "medium" ? 8192 : 2048;
  constexpr int64_t kMinimumBudget = 1024;  // The API's floor.
  if (max_tokens - budget < kMinimumBudget) {
    budget = max_tokens / 2;
  }
  return budget < kMinimumBudget ? 0 : budget;
}

std::string ServerMessage(const std::string& body) {
  json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_object() && parsed.contains("error") && parsed["error"].is_object()) {
    const json& error = parsed["error"];
    std::string type = error.value("type", "");
    std::string message = error.contains("message") && error["message"].is_string()
                              ? error["message"].get<std::string>()
                              : "";
    return type.empty() ? message : type + ": " + message;
  }
  return "";
}

// A message's content: its text, or with a cache prefix two text blocks, the first carrying the
// cache breakpoint (the prompt up to its end is cached for five minutes; a cache read costs a
// tenth of input). A block of whitespace alone is refused by the API, so such a split is not made.
json Content(const ChatMessage& message) {
  const size_t prefix = message.cache_prefix;
  const std::string_view text = message.content;
  const auto blank = [](std::string_view part) {
    return part.find_first_not_of(" \n\t\r") == std::string_view::npos;
  };
  if (prefix == 0 || prefix >= text.size() || blank(text.substr(0, prefix)) ||
      blank(text.substr(prefix))) {
    return message.content;
  }
  return json::array({{{"type", "text"},
                       {"text", std::string(text.substr(0, prefix))},
                       {"cache_control", {{"type", "ephemeral"}}}},
                      {{"type", "text"}, {"text", std::string(text.substr(prefix))}}});
}

}  // namespace

Result<HttpRequest> AnthropicProvider::Build(const ChatRequest& request) const {
  json body = {{"model", request.model.model}, {"messages", json::array()}};
  std::string system;
  for (const ChatMessage& message : request.messages) {
    if (message.role == "system") {
      system += (system.empty() ? "" : "\n\n") + message.content;
    } else if (message.role == "user" || message.role == "assistant") {
      body["messages"].push_back({{"role", message.role}, {"content", Content(message)}});
    } else {
      return InvalidArgument("message role must be system, user or assistant, not '" +
                             message.role + "'");
    }
  }
  if (body["messages"].empty() || body["messages"][0]["role"] != "user") {
    return InvalidArgument("an Anthropic request must start with a user message");
  }
  if (!system.empty()) {
    body["system"] = system;
  }
  int64_t max_tokens =
      request.max_output_tokens > 0 ? request.max_output_tokens : settings_.max_output_tokens;
  body["max_tokens"] = max_tokens;
  const std::string& effort = request.reasoning_effort;
  if (!effort.empty() && effort != "minimal" && effort != "low" && effort != "medium" &&
      effort != "high") {
    return InvalidArgument("reasoning effort must be minimal, low, medium or high, not '" + effort +
                           "'");
  }
  int64_t thinking = effort.empty() || effort == "minimal" ? 0 : ThinkingBudget(effort, max_tokens);
  if (thinking > 0) {
    body["thinking"] = {{"type", "enabled"}, {"budget_tokens", thinking}};
  } else if (request.temperature) {
    body["temperature"] = *request.temperature;  // Thinking requires the default temperature.
  }
  HttpRequest http{.url = settings_.base_url + "/v1/messages",
                   .headers = {"Content-Type: application/json",
                               "anthropic-version: " + std::string(kApiVersion)},
                   .body = JsonText(body)};
  if (!settings_.api_key.empty()) {
    http.headers.push_back("x-api-key: " + settings_.api_key);
  }
  return http;
}

ParsedReply AnthropicProvider::Parse(const HttpResponse& response) const {
  if (response.status < 200 || response.status >= 300) {
    return internal::ClassifyHttpError(settings_, response, ServerMessage(response.body));
  }
  auto malformed = [&](const std::string& what) {
    return LlmError{.kind = LlmErrorKind::kTransient,
                    .message = settings_.base_url + " sent a reply that is not a message: " + what};
  };
  if (!internal::IsJsonContentType(response.content_type)) {
    return malformed("content type '" + response.content_type + "', expected JSON");
  }
  json parsed = json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return malformed("the JSON body does not parse (truncated?), " +
                     std::to_string(response.body.size()) + " bytes");
  }
  if (!parsed.is_object() || !parsed.contains("content") || !parsed["content"].is_array()) {
    std::string server = ServerMessage(response.body);
    return malformed(server.empty() ? "no content" : "error: " + server);
  }
  ChatReply reply;
  for (const json& block : parsed["content"]) {
    // Thinking blocks are the model's scratchpad; only text blocks are the answer.
    if (block.is_object() && block.value("type", "") == "text" && block.contains("text") &&
        block["text"].is_string()) {
      reply.text += block["text"].get<std::string>();
    }
  }
  if (parsed.contains("stop_reason") && parsed["stop_reason"].is_string()) {
    reply.finish_reason = parsed["stop_reason"].get<std::string>();
  }
  if (parsed.contains("model") && parsed["model"].is_string()) {
    reply.served_model = parsed["model"].get<std::string>();
  }
  const json usage = parsed.value("usage", json::object());
  const int64_t cache_read = TokenCountField(usage, "cache_read_input_tokens", reply.warnings);
  const int64_t cache_write = TokenCountField(usage, "cache_creation_input_tokens", reply.warnings);
  // Anthropic reports uncached input separately; our `input` is the whole prompt. Each part is
  // at most kMaxTokensPerCall, so the sum fits; ClampTokenUsage bounds it again.
  reply.usage.input =
      TokenCountField(usage, "input_tokens", reply.warnings) + cache_read + cache_write;
  reply.usage.cached_input = cache_read;
  reply.usage.cache_write = cache_write;
  reply.usage.output = TokenCountField(usage, "output_tokens", reply.warnings);
  ClampTokenUsage(reply.usage, reply.warnings);
  return reply;
}

}  // namespace adaexplore
