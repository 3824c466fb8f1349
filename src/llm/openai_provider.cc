#include "llm/openai_provider.h"

#include <nlohmann/json.hpp>

#include "core/json_text.h"
#include "llm/token_usage.h"

namespace adaexplore {
namespace {

using nlohmann::json;

Status CheckRequest(const ChatRequest& request) {
  bool has_user = false;
  for (const ChatMessage& message : request.messages) {
    if (message.role != "system" && message.role != "user" && message.role != "assistant") {
      return InvalidArgument("message role must be system, user or assistant, not '" +
                             message.role + "'");
    }
    has_user = has_user || message.role == "user";
  }
  if (!has_user) {
    return InvalidArgument("a chat request needs at least one user message");
  }
  const std::string& effort = request.reasoning_effort;
  if (!effort.empty() && effort != "minimal" && effort != "low" && effort != "medium" &&
      effort != "high") {
    return InvalidArgument("reasoning effort must be minimal, low, medium or high, not '" + effort +
                           "'");
  }
  return Status::Ok();
}

// The provider's error message from an error body ({"error": {"message": ...}}), if any.
std::string ServerMessage(const std::string& body) {
  json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_object() && parsed.contains("error")) {
    const json& error = parsed["error"];
    if (error.is_object() && error.contains("message") && error["message"].is_string()) {
      return error["message"].get<std::string>();
    }
    if (error.is_string()) {
      return error.get<std::string>();
    }
  }
  return "";
}

LlmError Malformed(const ProviderSettings& settings, const std::string& what) {
  return LlmError{
      .kind = LlmErrorKind::kTransient,
      .message = settings.base_url + " sent a reply that is not a chat completion: " + what};
}

}  // namespace

Result<HttpRequest> OpenAiProvider::Build(const ChatRequest& request) const {
  RETURN_IF_ERROR(CheckRequest(request));
  json body = {{"model", request.model.model}, {"messages", json::array()}};
  for (const ChatMessage& message : request.messages) {
    body["messages"].push_back({{"role", message.role}, {"content", message.content}});
  }
  body[settings_.max_tokens_field] =
      request.max_output_tokens > 0 ? request.max_output_tokens : settings_.max_output_tokens;
  if (request.temperature) {
    body["temperature"] = *request.temperature;
  }
  if (!request.reasoning_effort.empty()) {
    body["reasoning_effort"] = request.reasoning_effort;
  }
  HttpRequest http{.url = settings_.base_url + "/chat/completions",
                   .headers = {"Content-Type: application/json"},
                   .body = JsonText(body)};
  if (!settings_.api_key.empty()) {
    http.headers.push_back("Authorization: Bearer " + settings_.api_key);
  }
  return http;
}

ParsedReply OpenAiProvider::Parse(const HttpResponse& response) const {
  if (response.status < 200 || response.status >= 300) {
    return internal::ClassifyHttpError(settings_, response, ServerMessage(response.body));
  }
  if (!internal::IsJsonContentType(response.content_type)) {
    return Malformed(settings_, "content type '" + response.content_type + "', expected JSON");
  }
  json parsed = json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return Malformed(settings_, "the JSON body does not parse (truncated?), " +
                                    std::to_string(response.body.size()) + " bytes");
  }
  if (!parsed.is_object() || !parsed.contains("choices") || !parsed["choices"].is_array() ||
      parsed["choices"].empty() || !parsed["choices"][0].is_object()) {
    std::string server = ServerMessage(response.body);
    return Malformed(settings_, server.empty() ? "no choices" : "error: " + server);
  }
  const json& choice = parsed["choices"][0];
  const json message = choice.value("message", json::object());
  ChatReply reply;
  if (message.is_object() && message.contains("content") && message["content"].is_string()) {
    reply.text = message["content"].get<std::string>();
  } else if (message.is_object() && message.contains("refusal") && message["refusal"].is_string()) {
    reply.text = message["refusal"].get<std::string>();
  }
  if (choice.contains("finish_reason") && choice["finish_reason"].is_string()) {
    reply.finish_reason = choice["finish_reason"].get<std::string>();
  }
  if (parsed.contains("model") && parsed["model"].is_string()) {
    reply.served_model = parsed["model"].get<std::string>();
  }
  const json usage = parsed.value("usage", json::object());
  reply.usage.input = TokenCountField(usage, "prompt_tokens", reply.warnings);
  reply.usage.output = TokenCountField(usage, "completion_tokens", reply.warnings);
  if (usage.is_object()) {
    reply.usage.cached_input = TokenCountField(usage.value("prompt_tokens_details", json::object()),
                                               "cached_tokens", reply.warnings);
    reply.usage.reasoning =
        TokenCountField(usage.value("completion_tokens_details", json::object()),
                        "reasoning_tokens", reply.warnings);
  }
  ClampTokenUsage(reply.usage, reply.warnings);
  return reply;
}

}  // namespace adaexplore
