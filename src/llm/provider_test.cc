#include "llm/provider.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "llm/anthropic_provider.h"
#include "llm/openai_provider.h"
#include "llm/token_usage.h"

namespace adaexplore {
namespace {

using nlohmann::json;

ProviderSettings Settings(const std::string& name) {
  return ProviderSettings{
      .name = name, .base_url = "http://127.0.0.1:9", .api_key_env = "K", .api_key = "sk-secret"};
}

ChatRequest Request() {
  return ChatRequest{.model = {"openai", "gpt-5-mini"},
                     .messages = {{"system", "be brief"}, {"user", "write a kernel"}}};
}

TEST(ModelSpecTest, ParsesProviderAndModel) {
  Result<ModelSpec> spec = ParseModelSpec("openai:gpt-5-mini");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->provider, "openai");
  EXPECT_EQ(spec->model, "gpt-5-mini");
  // Model names may themselves hold colons (Ollama tags).
  EXPECT_EQ(ParseModelSpec("openai:qwen2.5-coder:32b")->model, "qwen2.5-coder:32b");
  EXPECT_FALSE(ParseModelSpec("gpt-5-mini").ok());
  EXPECT_FALSE(ParseModelSpec("openai:").ok());
  Result<ModelSpec> unknown = ParseModelSpec("gemini:x");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown provider 'gemini'"), std::string::npos);
}

TEST(ProviderEndpointTest, TheConfigurationThenTheVariableThenThePublicEndpoint) {
  ::unsetenv("OPENAI_BASE_URL");
  ProviderSettings settings{.name = "openai"};
  std::optional<Endpoint> endpoint = ProviderEndpoint(settings);
  ASSERT_TRUE(endpoint.has_value());
  EXPECT_EQ(endpoint->base_url, "https://api.openai.com/v1");
  EXPECT_FALSE(endpoint->named);
  ::setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1/", 1);
  endpoint = ProviderEndpoint(settings);
  EXPECT_EQ(endpoint->base_url, "http://127.0.0.1:8000/v1");
  EXPECT_TRUE(endpoint->named);
  settings.base_url = "http://10.0.0.2:9000/v1";
  EXPECT_EQ(ProviderEndpoint(settings)->base_url, "http://10.0.0.2:9000/v1");
  ::unsetenv("OPENAI_BASE_URL");
  EXPECT_FALSE(ProviderEndpoint(ProviderSettings{.name = "replay"}).has_value());
}

TEST(ProviderSettingsTest, MissingKeyForAPublicEndpointNamesTheVariable) {
  ::unsetenv("ADAEXPLORE_TEST_NO_KEY");
  ProviderSettings settings{.name = "openai",
                            .base_url = "https://api.openai.com/v1",
                            .api_key_env = "ADAEXPLORE_TEST_NO_KEY"};
  Result<ProviderSettings> resolved = ResolveProviderSettings(settings);
  ASSERT_FALSE(resolved.ok());
  EXPECT_NE(resolved.status().message().find("ADAEXPLORE_TEST_NO_KEY"), std::string::npos);
  // A local server needs no key.
  settings.base_url = "http://localhost:8000/v1/";
  resolved = ResolveProviderSettings(settings);
  ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
  EXPECT_EQ(resolved->base_url, "http://localhost:8000/v1");
}

TEST(ProviderSettingsTest, AnUnusableEndpointIsAConfigurationError) {
  ::setenv("ADAEXPLORE_TEST_KEY", "sk-test", 1);
  auto resolve = [](std::string url) {
    return ResolveProviderSettings(
        {.name = "openai", .base_url = std::move(url), .api_key_env = "ADAEXPLORE_TEST_KEY"});
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"htp://localhost:8000/v1", "Unsupported URL scheme"},
      {"http://localhost:99999/v1", "Port number"},
      {"http://localhost:80a/v1", "Port number"},
      {"localhost:8000/v1", "scheme"},
      {"http://[::1/v1", "usable URL"},
      {"ftp://example.com/v1", "scheme 'ftp'"}};
  for (const auto& [url, why] : cases) {
    Result<ProviderSettings> resolved = resolve(url);
    ASSERT_FALSE(resolved.ok()) << url;
    EXPECT_EQ(resolved.status().code(), StatusCode::kInvalidArgument) << url;
    const std::string message = resolved.status().message();
    EXPECT_NE(message.find("'" + url + "'"), std::string::npos) << message;
    EXPECT_NE(message.find(why), std::string::npos) << url << ": " << message;
  }
  EXPECT_TRUE(resolve("https://api.example.com:8443/v1").ok());
  ::unsetenv("ADAEXPLORE_TEST_KEY");
}

TEST(ProviderSettingsTest, EnvironmentSuppliesBaseUrlAndKey) {
  ::setenv("OPENAI_BASE_URL", "http://127.0.0.1:1234/v1", 1);
  ::setenv("ADAEXPLORE_TEST_KEY", "sk-from-env", 1);
  Result<ProviderSettings> resolved =
      ResolveProviderSettings({.name = "openai", .api_key_env = "ADAEXPLORE_TEST_KEY"});
  ::unsetenv("OPENAI_BASE_URL");
  ::unsetenv("ADAEXPLORE_TEST_KEY");
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(resolved->base_url, "http://127.0.0.1:1234/v1");
  EXPECT_EQ(resolved->api_key, "sk-from-env");
}

TEST(OpenAiProviderTest, BuildsAReasoningModelRequest) {
  OpenAiProvider provider(Settings("openai"));
  ChatRequest request = Request();
  request.reasoning_effort = "high";
  request.max_output_tokens = 1000;
  Result<HttpRequest> http = provider.Build(request);
  ASSERT_TRUE(http.ok());
  EXPECT_EQ(http->url, "http://127.0.0.1:9/chat/completions");
  json body = json::parse(http->body);
  EXPECT_EQ(body["model"], "gpt-5-mini");
  EXPECT_EQ(body["max_completion_tokens"], 1000);
  EXPECT_EQ(body["reasoning_effort"], "high");
  EXPECT_FALSE(body.contains("temperature"));  // GPT-5 refuses anything but the default.
  EXPECT_EQ(body["messages"].size(), 2u);
  EXPECT_NE(
      std::find(http->headers.begin(), http->headers.end(), "Authorization: Bearer sk-secret"),
      http->headers.end());
}

TEST(OpenAiProviderTest, OlderServersGetMaxTokens) {
  ProviderSettings settings = Settings("openai");
  settings.max_tokens_field = "max_tokens";
  settings.api_key.clear();
  OpenAiProvider provider(settings);
  ChatRequest request = Request();
  request.temperature = 0.7;
  Result<HttpRequest> http = provider.Build(request);
  ASSERT_TRUE(http.ok());
  json body = json::parse(http->body);
  EXPECT_EQ(body["max_tokens"], 32768);
  EXPECT_EQ(body["temperature"], 0.7);
  for (const std::string& header : http->headers) {
    EXPECT_EQ(header.find("Authorization"), std::string::npos);  // Keyless local server.
  }
}

TEST(OpenAiProviderTest, RejectsRequestsItCannotSend) {
  OpenAiProvider provider(Settings("openai"));
  ChatRequest request = Request();
  request.messages = {{"system", "only a system message"}};
  EXPECT_FALSE(provider.Build(request).ok());
  request = Request();
  request.reasoning_effort = "extreme";
  EXPECT_FALSE(provider.Build(request).ok());
}

TEST(OpenAiProviderTest, ParsesAReplyWithUsage) {
  OpenAiProvider provider(Settings("openai"));
  json body = {
      {"model", "gpt-5-mini-2025"},
      {"choices", {{{"message", {{"content", "```python\nx\n```"}}}, {"finish_reason", "stop"}}}},
      {"usage",
       {{"prompt_tokens", 1200},
        {"completion_tokens", 300},
        {"prompt_tokens_details", {{"cached_tokens", 1000}}},
        {"completion_tokens_details", {{"reasoning_tokens", 250}}}}}};
  ParsedReply parsed =
      provider.Parse({.status = 200, .content_type = "application/json", .body = body.dump()});
  ASSERT_TRUE(std::holds_alternative<ChatReply>(parsed));
  const ChatReply& reply = std::get<ChatReply>(parsed);
  EXPECT_EQ(reply.text, "```python\nx\n```");
  EXPECT_EQ(reply.finish_reason, "stop");
  EXPECT_EQ(reply.served_model, "gpt-5-mini-2025");
  EXPECT_EQ(reply.usage.input, 1200);
  EXPECT_EQ(reply.usage.cached_input, 1000);
  EXPECT_EQ(reply.usage.output, 300);
  EXPECT_EQ(reply.usage.reasoning, 250);
}

LlmError ErrorOf(const Provider& provider, const HttpResponse& response) {
  ParsedReply parsed = provider.Parse(response);
  EXPECT_TRUE(std::holds_alternative<LlmError>(parsed));
  return std::holds_alternative<LlmError>(parsed) ? std::get<LlmError>(parsed) : LlmError{};
}

TEST(OpenAiProviderTest, ClassifiesErrors) {
  OpenAiProvider provider(Settings("openai"));
  const std::string error_body =
      R"({"error": {"message": "Unsupported parameter: 'temperature'"}})";
  LlmError bad =
      ErrorOf(provider, {.status = 400, .content_type = "application/json", .body = error_body});
  EXPECT_EQ(bad.kind, LlmErrorKind::kBadRequest);
  EXPECT_NE(bad.message.find("Unsupported parameter: 'temperature'"), std::string::npos);
  EXPECT_NE(bad.message.find("[llm.openai]"), std::string::npos);

  LlmError auth = ErrorOf(provider, {.status = 401, .body = "{}"});
  EXPECT_EQ(auth.kind, LlmErrorKind::kAuth);
  EXPECT_NE(auth.message.find("check K"), std::string::npos);
  EXPECT_EQ(ErrorOf(provider, {.status = 403, .body = ""}).kind, LlmErrorKind::kAuth);
  EXPECT_EQ(ErrorOf(provider, {.status = 404, .body = ""}).kind, LlmErrorKind::kBadRequest);

  LlmError limited = ErrorOf(provider, {.status = 429, .body = "", .retry_after_s = 7});
  EXPECT_EQ(limited.kind, LlmErrorKind::kTransient);
  EXPECT_EQ(limited.retry_after_s, 7);
  EXPECT_EQ(ErrorOf(provider, {.status = 500, .body = "oops"}).kind, LlmErrorKind::kTransient);
  EXPECT_EQ(ErrorOf(provider, {.status = 503, .body = ""}).kind, LlmErrorKind::kTransient);
}

TEST(OpenAiProviderTest, MalformedSuccessfulRepliesAreTransient) {
  OpenAiProvider provider(Settings("openai"));
  LlmError html = ErrorOf(
      provider, {.status = 200, .content_type = "text/html", .body = "<html>gateway</html>"});
  EXPECT_EQ(html.kind, LlmErrorKind::kTransient);
  EXPECT_NE(html.message.find("text/html"), std::string::npos);
  LlmError truncated =
      ErrorOf(provider,
              {.status = 200, .content_type = "application/json", .body = R"({"choices": [{"mes)"});
  EXPECT_NE(truncated.message.find("does not parse"), std::string::npos);
  LlmError empty = ErrorOf(
      provider, {.status = 200, .content_type = "application/json", .body = R"({"choices": []})"});
  EXPECT_EQ(empty.kind, LlmErrorKind::kTransient);
}

TEST(AnthropicProviderTest, MovesSystemMessagesAndMapsEffortToThinking) {
  AnthropicProvider provider(Settings("anthropic"));
  ChatRequest request = Request();
  request.model = {"anthropic", "claude-sonnet-4-5"};
  request.reasoning_effort = "medium";
  request.temperature = 0.5;
  Result<HttpRequest> http = provider.Build(request);
  ASSERT_TRUE(http.ok()) << http.status().ToString();
  EXPECT_EQ(http->url, "http://127.0.0.1:9/v1/messages");
  json body = json::parse(http->body);
  EXPECT_EQ(body["system"], "be brief");
  EXPECT_EQ(body["messages"].size(), 1u);
  EXPECT_EQ(body["max_tokens"], 32768);
  EXPECT_EQ(body["thinking"]["budget_tokens"], 8192);
  EXPECT_FALSE(body.contains("temperature"));  // Thinking needs the default temperature.
  EXPECT_NE(std::find(http->headers.begin(), http->headers.end(), "x-api-key: sk-secret"),
            http->headers.end());
  EXPECT_NE(std::find(http->headers.begin(), http->headers.end(), "anthropic-version: 2023-06-01"),
            http->headers.end());
}

// The part of a message its role repeats is a text block with a cache breakpoint; the text
// the model reads is unchanged.
TEST(AnthropicProviderTest, MarksACacheBreakpointAfterTheSharedPart) {
  AnthropicProvider provider(Settings("anthropic"));
  ChatRequest request = Request();
  request.model = {"anthropic", "claude-sonnet-4-5"};
  request.messages = {{.role = "system", .content = "be brief"},
                      {.role = "user", .content = "task and rules\n\nkernels", .cache_prefix = 16}};
  Result<HttpRequest> http = provider.Build(request);
  ASSERT_TRUE(http.ok()) << http.status().ToString();
  json content = json::parse(http->body)["messages"][0]["content"];
  ASSERT_TRUE(content.is_array()) << content;
  ASSERT_EQ(content.size(), 2u);
  EXPECT_EQ(content[0]["text"], "task and rules\n\n");
  EXPECT_EQ(content[0]["cache_control"], json({{"type", "ephemeral"}}));
  EXPECT_EQ(content[1]["text"], "kernels");
  EXPECT_FALSE(content[1].contains("cache_control"));
  // No mark, a mark at either end, or a part of whitespace alone: the plain text.
  for (const size_t prefix : {size_t{0}, size_t{24}, size_t{99}}) {
    request.messages[1].cache_prefix = prefix;
    EXPECT_EQ(json::parse(provider.Build(request)->body)["messages"][0]["content"],
              "task and rules\n\nkernels")
        << prefix;
  }
  request.messages[1] = {.role = "user", .content = "\n\nkernels", .cache_prefix = 2};
  EXPECT_EQ(json::parse(provider.Build(request)->body)["messages"][0]["content"], "\n\nkernels");
}

TEST(AnthropicProviderTest, ParsesTextBlocksAndCacheUsage) {
  AnthropicProvider provider(Settings("anthropic"));
  json body = {{"content",
                {{{"type", "thinking"}, {"thinking", "hmm"}}, {{"type", "text"}, {"text", "hi"}}}},
               {"stop_reason", "max_tokens"},
               {"usage",
                {{"input_tokens", 10},
                 {"output_tokens", 20},
                 {"cache_read_input_tokens", 100},
                 {"cache_creation_input_tokens", 5}}}};
  ParsedReply parsed =
      provider.Parse({.status = 200, .content_type = "application/json", .body = body.dump()});
  ASSERT_TRUE(std::holds_alternative<ChatReply>(parsed));
  const ChatReply& reply = std::get<ChatReply>(parsed);
  EXPECT_EQ(reply.text, "hi");
  EXPECT_EQ(reply.finish_reason, "max_tokens");
  EXPECT_EQ(reply.usage.input, 115);
  EXPECT_EQ(reply.usage.cached_input, 100);
  EXPECT_EQ(reply.usage.cache_write, 5);
  EXPECT_EQ(reply.usage.output, 20);
  LlmError overloaded = ErrorOf(
      provider,
      {.status = 529,
       .content_type = "application/json",
       .body = R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"});
  EXPECT_EQ(overloaded.kind, LlmErrorKind::kTransient);
  EXPECT_NE(overloaded.message.find("overloaded_error: Overloaded"), std::string::npos);
}

TEST(OpenAiProviderTest, AbsurdTokenCountsAreClampedWithAWarning) {
  OpenAiProvider provider(Settings("openai"));
  json body = {{"choices", {{{"message", {{"content", "hi"}}}}}},
               {"usage",
                {{"prompt_tokens", INT64_MAX},
                 {"completion_tokens", -5},
                 {"prompt_tokens_details", {{"cached_tokens", 12.5}}},
                 {"completion_tokens_details", {{"reasoning_tokens", "many"}}}}}};
  ParsedReply parsed =
      provider.Parse({.status = 200, .content_type = "application/json", .body = body.dump()});
  ASSERT_TRUE(std::holds_alternative<ChatReply>(parsed));
  const ChatReply& reply = std::get<ChatReply>(parsed);
  EXPECT_EQ(reply.text, "hi");  // The reply itself is still used.
  EXPECT_EQ(reply.usage.input, kMaxTokensPerCall);
  EXPECT_EQ(reply.usage.output, 0);
  EXPECT_EQ(reply.usage.cached_input, 0);
  EXPECT_EQ(reply.usage.reasoning, 0);
  ASSERT_EQ(reply.warnings.size(), 4u);
  EXPECT_NE(reply.warnings[0].find("prompt_tokens = 9223372036854775807"), std::string::npos);
  EXPECT_NE(reply.warnings[1].find("completion_tokens = -5 is negative"), std::string::npos);
}

TEST(AnthropicProviderTest, SummedInputPartsStayWithinTheCeiling) {
  AnthropicProvider provider(Settings("anthropic"));
  json body = {{"content", {{{"type", "text"}, {"text", "hi"}}}},
               {"usage",
                {{"input_tokens", UINT64_MAX},
                 {"output_tokens", 7},
                 {"cache_read_input_tokens", INT64_MAX},
                 {"cache_creation_input_tokens", INT64_MAX}}}};
  ParsedReply parsed =
      provider.Parse({.status = 200, .content_type = "application/json", .body = body.dump()});
  ASSERT_TRUE(std::holds_alternative<ChatReply>(parsed));
  const ChatReply& reply = std::get<ChatReply>(parsed);
  EXPECT_EQ(reply.usage.input, kMaxTokensPerCall);
  EXPECT_EQ(reply.usage.cached_input, kMaxTokensPerCall);
  EXPECT_EQ(reply.usage.output, 7);
  EXPECT_FALSE(reply.warnings.empty());
}

TEST(ProviderErrorsTest, ANetworkErrorIsRetriedUnlessTheReplyWasTooLarge) {
  const ProviderSettings settings{.name = "openai", .base_url = "http://127.0.0.1:9"};
  const LlmError refused = internal::ClassifyNetworkError(settings, "Connection refused", false, 0);
  EXPECT_EQ(refused.kind, LlmErrorKind::kTransient);
  EXPECT_EQ(refused.message, "http://127.0.0.1:9: Connection refused");
  const LlmError slow = internal::ClassifyNetworkError(settings, "Timeout", true, 0);
  EXPECT_NE(slow.message.find("[llm.openai] timeout_s"), std::string::npos) << slow.message;
  const LlmError large = internal::ClassifyNetworkError(settings, "x", false, int64_t{2} << 20);
  EXPECT_EQ(large.kind, LlmErrorKind::kBadRequest);
  EXPECT_NE(large.message.find("larger than 2 MiB"), std::string::npos) << large.message;
}

}  // namespace
}  // namespace adaexplore
