#include "llm/client.h"

#include <gtest/gtest.h>
#include <poll.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "fake_llm_server.h"
#include "sys/fs.h"

namespace adaexplore {
namespace {

using std::chrono::steady_clock;

constexpr const char* kKeyVariable = "ADAEXPLORE_TEST_LLM_KEY";
constexpr const char* kKey = "sk-test-7f3a9c1e5b2d";

class LlmClientTest : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv(kKeyVariable, kKey, 1); }
  void TearDown() override { ::unsetenv(kKeyVariable); }

  void StartServer(FakeHandler handler) {
    auto server = FakeLlmServer::Start(std::move(handler));
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = *std::move(server);
  }

  LlmOptions Options() {
    LlmOptions options;
    for (const char* name : {"openai", "anthropic"}) {
      options.providers[name] = ProviderSettings{.name = name,
                                                 .base_url = server_ ? server_->base_url() : "",
                                                 .api_key_env = kKeyVariable,
                                                 .concurrency = 8,
                                                 .timeout_s = 10};
    }
    options.retry = {.max_attempts = 4, .initial_backoff_s = 0.01, .max_backoff_s = 0.05};
    options.cache_enabled = false;
    return options;
  }

  std::unique_ptr<LlmClient> Client(LlmOptions options) {
    auto client = LlmClient::Create(std::move(options));
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? *std::move(client) : nullptr;
  }

  static ChatRequest Request(std::string prompt = "write a kernel", int64_t sample = 0) {
    return ChatRequest{.model = {"openai", "fake-model"},
                       .messages = {{"system", "you write kernels"}, {"user", std::move(prompt)}},
                       .sample = sample,
                       .role = LlmRole::kProposer,
                       .task = "19_ReLU"};
  }

  std::unique_ptr<FakeLlmServer> server_;
  TempDir dir_ = *TempDir::Create("llm-client");
};

TEST_F(LlmClientTest, ReturnsAReplyAndLedgersIt) {
  StartServer([](const FakeHttpRequest&, int) {
    return FakeReply{.body = OpenAiChatBody("```python\nprint(1)\n```", 1200, 300, 1000)};
  });
  LlmOptions options = Options();
  options.prices.Set("openai:fake-model",
                     {.input_per_mtok = 1, .cached_input_per_mtok = 0.1, .output_per_mtok = 10});
  auto client = Client(options);
  LlmCompletion done = client->Call(Request());
  ASSERT_TRUE(done.reply.has_value()) << done.error->message;
  EXPECT_EQ(done.reply->text, "```python\nprint(1)\n```");
  EXPECT_EQ(done.reply->usage.cached_input, 1000);
  EXPECT_EQ(done.attempts, 1);
  EXPECT_EQ(done.source, CallSource::kLive);

  FakeHttpRequest seen = server_->requests().at(0);
  EXPECT_EQ(seen.path, "/chat/completions");
  EXPECT_EQ(seen.headers["authorization"], std::string("Bearer ") + kKey);
  EXPECT_EQ(nlohmann::json::parse(seen.body)["model"], "fake-model");

  LedgerTotals total = client->ledger().Total();
  EXPECT_EQ(total.calls, 1);
  // 200 uncached at $1/M + 1000 cached at $0.1/M + 300 out at $10/M.
  EXPECT_NEAR(total.cost_usd, (200 * 1 + 1000 * 0.1 + 300 * 10) / 1e6, 1e-15);
  EXPECT_EQ(client->ledger().ByRole()["proposer"].calls, 1);
  EXPECT_EQ(client->ledger().ByTask()["19_ReLU"].output_tokens, 300);
}

TEST_F(LlmClientTest, CompletionsWakeThePollLoop) {
  StartServer([](const FakeHttpRequest&, int) {
    return FakeReply{.body = OpenAiChatBody("ok", 1, 1), .delay_s = 0.05};
  });
  auto client = Client(Options());
  for (int i = 0; i < 5; ++i) {
    client->Submit(Request("p", i));
  }
  std::vector<LlmCompletion> done;
  const auto deadline = steady_clock::now() + std::chrono::seconds(10);
  while (done.size() < 5 && steady_clock::now() < deadline) {
    pollfd fd{client->wakeup_fd(), POLLIN, 0};
    ASSERT_GE(::poll(&fd, 1, 10000), 0);
    for (LlmCompletion& c : client->TakeCompletions()) {
      done.push_back(std::move(c));
    }
  }
  ASSERT_EQ(done.size(), 5u);
  for (const LlmCompletion& c : done) {
    EXPECT_TRUE(c.reply.has_value());
  }
}

TEST_F(LlmClientTest, RetriesA429AfterItsRetryAfterAndPausesTheProvider) {
  std::mutex mutex;
  std::vector<steady_clock::time_point> arrivals;
  StartServer([&](const FakeHttpRequest&, int number) {
    {
      std::lock_guard lock(mutex);
      arrivals.push_back(steady_clock::now());
    }
    if (number == 1) {
      return FakeReply{.status = 429,
                       .headers = {{"Retry-After", "1"}},
                       .body = R"({"error": {"message": "Rate limit reached"}})"};
    }
    return FakeReply{.body = OpenAiChatBody("ok", 1, 1)};
  });
  auto client = Client(Options());
  const uint64_t first = client->Submit(Request("a"));
  while (server_->request_count() < 1) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // The 429 has been handled.
  client->Submit(Request("b"));
  std::vector<LlmCompletion> done;
  while (done.size() < 2) {
    for (LlmCompletion& c : client->TakeCompletions()) {
      done.push_back(std::move(c));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (const LlmCompletion& c : done) {
    ASSERT_TRUE(c.reply.has_value());
    EXPECT_EQ(c.attempts, c.id == first ? 2 : 1);
  }
  ASSERT_EQ(arrivals.size(), 3u);
  // Neither the retry nor the request submitted during the pause went before Retry-After.
  EXPECT_GE(arrivals[1] - arrivals[0], std::chrono::milliseconds(990));
  EXPECT_GE(arrivals[2] - arrivals[0], std::chrono::milliseconds(990));
  EXPECT_EQ(client->ledger().Total().retries, 1);
}

TEST_F(LlmClientTest, ServerErrorsAreRetriedThenReportedWithTheLastError) {
  StartServer([](const FakeHttpRequest&, int) {
    return FakeReply{.status = 503, .body = R"({"error": {"message": "overloaded"}})"};
  });
  auto client = Client(Options());
  LlmCompletion done = client->Call(Request());
  ASSERT_TRUE(done.error.has_value());
  EXPECT_EQ(done.error->kind, LlmErrorKind::kTransient);
  EXPECT_EQ(done.attempts, 4);
  EXPECT_EQ(server_->request_count(), 4);
  EXPECT_NE(done.error->message.find("gave up after 4 attempts"), std::string::npos);
  EXPECT_NE(done.error->message.find("HTTP 503: overloaded"), std::string::npos);
  EXPECT_EQ(client->ledger().Total().failed_calls, 1);
  // Each retry was announced (the status line's "retrying 2/4 in 1 s: HTTP 503").
  std::vector<LlmRetry> retries = client->TakeRetries();
  ASSERT_EQ(retries.size(), 3u);
  for (size_t i = 0; i < retries.size(); ++i) {
    EXPECT_EQ(retries[i].id, done.id);
    EXPECT_EQ(retries[i].attempt, static_cast<int>(i) + 1);
    EXPECT_EQ(retries[i].max_attempts, 4);
    EXPECT_EQ(retries[i].cause, "HTTP 503");
    EXPECT_GE(retries[i].wait_s, 0);
  }
  EXPECT_TRUE(client->TakeRetries().empty());
}

TEST_F(LlmClientTest, SurvivesEveryKindOfBrokenReplyAndThenSucceeds) {
  const std::string good = OpenAiChatBody("finally", 5, 5);
  StartServer([&](const FakeHttpRequest&, int number) {
    switch (number) {
      case 1:
        return FakeReply{.body = good, .fault = FakeFault::kTruncateBody, .truncate_at = 20};
      case 2:
        return FakeReply{.fault = FakeFault::kReset};
      case 3:
        return FakeReply{.body = good.substr(0, good.size() / 2)};  // Truncated JSON.
      case 4:
        return FakeReply{.content_type = "text/html", .body = "<html>502</html>"};
      case 5:
        return FakeReply{.body = good, .fault = FakeFault::kCloseAfterHeaders};
      case 6:
        return FakeReply{.status = 500, .body = "not json at all"};
      default:
        return FakeReply{.body = good};
    }
  });
  LlmOptions options = Options();
  options.retry.max_attempts = 8;
  auto client = Client(options);
  LlmCompletion done = client->Call(Request());
  ASSERT_TRUE(done.reply.has_value()) << done.error->message;
  EXPECT_EQ(done.reply->text, "finally");
  EXPECT_EQ(done.attempts, 7);
  EXPECT_EQ(client->ledger().Total().retries, 6);
}

TEST_F(LlmClientTest, SlowRepliesTimeOut) {
  StartServer([](const FakeHttpRequest&, int) {
    return FakeReply{.body = OpenAiChatBody("late", 1, 1), .delay_s = 30};
  });
  LlmOptions options = Options();
  options.providers["openai"].timeout_s = 0.3;
  options.retry.max_attempts = 2;
  auto client = Client(options);
  const auto start = steady_clock::now();
  LlmCompletion done = client->Call(Request());
  EXPECT_LT(steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_TRUE(done.error.has_value());
  EXPECT_EQ(done.attempts, 2);
  EXPECT_NE(done.error->message.find("timeout_s"), std::string::npos) << done.error->message;
}

TEST_F(LlmClientTest, HugeRepliesAreRefusedNotBuffered) {
  StartServer([](const FakeHttpRequest&, int) {
    return FakeReply{.body = OpenAiChatBody(std::string(4 << 20, 'x'), 1, 1)};
  });
  LlmOptions options = Options();
  options.max_reply_bytes = 1 << 20;
  auto client = Client(options);
  LlmCompletion done = client->Call(Request());
  ASSERT_TRUE(done.error.has_value());
  EXPECT_EQ(done.error->kind, LlmErrorKind::kBadRequest);
  EXPECT_NE(done.error->message.find("larger than 1 MiB"), std::string::npos);
  EXPECT_EQ(server_->request_count(), 1);
}

// A wrong port stops the provider after a few quick tries, naming the endpoint (it was once
// 8 tries a call and 10 calls: about 20 minutes of silence); an endpoint that answered this run
// and then went away is an outage, tried as long as any transient error.
TEST_F(LlmClientTest, AnEndpointNeverReachedStopsTheProviderAndOneThatAnsweredIsRetried) {
  StartServer(
      [](const FakeHttpRequest&, int) { return FakeReply{.body = OpenAiChatBody("ok", 1, 1)}; });
  const std::string url = server_->base_url();
  server_.reset();  // Nothing listens there now: connections are refused.
  LlmOptions options = Options();
  options.providers["openai"].base_url = url;
  options.retry.max_attempts = 8;
  auto client = Client(options);
  LlmCompletion done = client->Call(Request());
  ASSERT_TRUE(done.error.has_value());
  EXPECT_EQ(done.error->kind, LlmErrorKind::kUnreachable);
  EXPECT_EQ(done.attempts, 3);
  EXPECT_NE(done.error->message.find(url), std::string::npos) << done.error->message;
  EXPECT_NE(done.error->message.find("never reached in 3 tries"), std::string::npos)
      << done.error->message;
  LlmCompletion next = client->Call(Request("another"));  // The provider is stopped.
  ASSERT_TRUE(next.error.has_value());
  EXPECT_EQ(next.error->kind, LlmErrorKind::kUnreachable);

  StartServer(
      [](const FakeHttpRequest&, int) { return FakeReply{.body = OpenAiChatBody("ok", 1, 1)}; });
  options = Options();
  options.retry.max_attempts = 5;
  auto answered = Client(options);
  ASSERT_TRUE(answered->Call(Request()).reply.has_value());
  server_.reset();
  LlmCompletion outage = answered->Call(Request("during the outage"));
  ASSERT_TRUE(outage.error.has_value());
  EXPECT_EQ(outage.error->kind, LlmErrorKind::kTransient);
  EXPECT_EQ(outage.attempts, 5);
}

TEST_F(LlmClientTest, AnAuthFailureStopsTheProviderNamesTheVariableAndHidesTheKey) {
  StartServer([](const FakeHttpRequest&, int) {
    return FakeReply{.status = 401,
                     .body = std::string(R"({"error": {"message": "Incorrect API key provided: )") +
                             kKey + "\"}}"};
  });
  auto client = Client(Options());
  LlmCompletion first = client->Call(Request());
  ASSERT_TRUE(first.error.has_value());
  EXPECT_EQ(first.error->kind, LlmErrorKind::kAuth);
  EXPECT_EQ(first.attempts, 1);
  EXPECT_NE(first.error->message.find(kKeyVariable), std::string::npos);
  EXPECT_EQ(first.error->message.find(kKey), std::string::npos) << first.error->message;
  for (int i = 0; i < 3; ++i) {
    LlmCompletion later = client->Call(Request("again", i));
    ASSERT_TRUE(later.error.has_value());
    EXPECT_EQ(later.error->kind, LlmErrorKind::kAuth);
  }
  EXPECT_EQ(server_->request_count(), 1);  // Nothing more was sent once the key was refused.
}

TEST_F(LlmClientTest, AMissingKeyFailsBeforeAnyRequest) {
  ::unsetenv(kKeyVariable);
  LlmOptions options = Options();
  options.providers["openai"].base_url = "https://api.openai.com/v1";
  auto client = Client(options);
  Status prepared = client->Prepare({"openai", "gpt-5-mini"});
  ASSERT_FALSE(prepared.ok());
  EXPECT_NE(prepared.message().find(kKeyVariable), std::string::npos);
  LlmCompletion done = client->Call(Request());
  ASSERT_TRUE(done.error.has_value());
  EXPECT_EQ(done.error->kind, LlmErrorKind::kAuth);
}

TEST_F(LlmClientTest, ABadRequestFailsOnlyThatRequest) {
  StartServer([](const FakeHttpRequest& request, int) {
    if (request.body.find("too long") != std::string::npos) {
      return FakeReply{.status = 400,
                       .body = R"({"error": {"message": "maximum context length exceeded"}})"};
    }
    return FakeReply{.body = OpenAiChatBody("fine", 1, 1)};
  });
  auto client = Client(Options());
  LlmCompletion bad = client->Call(Request("too long"));
  ASSERT_TRUE(bad.error.has_value());
  EXPECT_EQ(bad.error->kind, LlmErrorKind::kBadRequest);
  EXPECT_EQ(bad.attempts, 1);
  EXPECT_NE(bad.error->message.find("maximum context length"), std::string::npos);
  EXPECT_TRUE(client->Call(Request("short")).reply.has_value());
}

TEST_F(LlmClientTest, ConcurrencyIsCappedPerProviderAndUsedFully) {
  StartServer([](const FakeHttpRequest&, int) {
    return FakeReply{.body = OpenAiChatBody("ok", 1, 1), .delay_s = 0.1};
  });
  LlmOptions options = Options();
  options.providers["openai"].concurrency = 4;
  auto client = Client(options);
  for (int i = 0; i < 20; ++i) {
    client->Submit(Request("p", i));
  }
  size_t done = 0;
  while (done < 20) {
    done += client->TakeCompletions().size();
    EXPECT_LE(client->TEST_InFlight(), 4);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(server_->max_concurrent(), 4);
}

TEST_F(LlmClientTest, ManyRequestsInFlightOnOneThread) {
  StartServer([](const FakeHttpRequest&, int) {
    return FakeReply{.body = OpenAiChatBody("ok", 1, 1), .delay_s = 0.3};
  });
  LlmOptions options = Options();
  options.providers["openai"].concurrency = 64;
  auto client = Client(options);
  const auto start = steady_clock::now();
  for (int i = 0; i < 128; ++i) {
    client->Submit(Request("p", i));
  }
  size_t done = 0;
  while (done < 128) {
    done += client->TakeCompletions().size();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_GE(server_->max_concurrent(), 48);
  // Two waves of 0.3 s, not 128 of them.
  EXPECT_LT(steady_clock::now() - start, std::chrono::seconds(6));
}

TEST_F(LlmClientTest, ATokenBudgetStopsSendingCleanly) {
  StartServer(
      [](const FakeHttpRequest&, int) { return FakeReply{.body = OpenAiChatBody("ok", 60, 40)}; });
  LlmOptions options = Options();
  options.budget.max_tokens = 250;
  auto client = Client(options);
  int replies = 0;
  int refused = 0;
  for (int i = 0; i < 5; ++i) {
    LlmCompletion done = client->Call(Request("p", i));
    replies += done.reply ? 1 : 0;
    if (done.error) {
      EXPECT_EQ(done.error->kind, LlmErrorKind::kBudget);
      EXPECT_NE(done.error->message.find("250 tokens"), std::string::npos);
      ++refused;
    }
  }
  EXPECT_EQ(replies, 3);  // 0, 100 and 200 tokens spent before each of the first three.
  EXPECT_EQ(refused, 2);
  EXPECT_EQ(server_->request_count(), 3);
}

TEST_F(LlmClientTest, TheCacheAnswersRepeatsButKeepsSamplesApart) {
  StartServer([](const FakeHttpRequest&, int number) {
    return FakeReply{.body = OpenAiChatBody("reply " + std::to_string(number), 10, 10)};
  });
  LlmOptions options = Options();
  options.cache_enabled = true;
  options.cache_path = dir_.path() + "/llm-cache.sqlite";
  {
    auto client = Client(options);
    EXPECT_EQ(client->Call(Request("p", 0)).reply->text, "reply 1");
    LlmCompletion again = client->Call(Request("p", 0));
    EXPECT_EQ(again.reply->text, "reply 1");
    EXPECT_EQ(again.source, CallSource::kCache);
    EXPECT_EQ(client->Call(Request("p", 1)).reply->text, "reply 2");
    EXPECT_EQ(client->ledger().Total().from_cache, 1);
  }
  auto reopened = Client(options);  // A resumed run.
  EXPECT_EQ(reopened->Call(Request("p", 1)).source, CallSource::kCache);
  EXPECT_EQ(server_->request_count(), 2);
  Result<std::string> bytes = ReadFile(options.cache_path);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(bytes->find(kKey), std::string::npos);
}

TEST_F(LlmClientTest, RecordsAConversationAndReplaysItWithoutTheServer) {
  StartServer([](const FakeHttpRequest& request, int) {
    std::string prompt = nlohmann::json::parse(request.body)["messages"][1]["content"];
    return FakeReply{.body = OpenAiChatBody("answer to " + prompt, 10, 10)};
  });
  const std::string recording = dir_.path() + "/run.jsonl";
  LlmOptions options = Options();
  options.record_path = recording;
  {
    auto client = Client(options);
    for (const char* prompt : {"one", "two", "three"}) {
      ASSERT_TRUE(client->Call(Request(prompt)).reply.has_value());
    }
  }
  server_.reset();  // Nothing to talk to any more.
  Result<std::string> text = ReadFile(recording);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->find(kKey), std::string::npos);

  ::unsetenv(kKeyVariable);  // Replay needs no key.
  auto client = Client(Options());
  ASSERT_TRUE(client->Prepare({"replay", recording}).ok());
  for (const char* prompt : {"two", "one", "three"}) {
    ChatRequest request = Request(prompt);
    request.model = {"replay", recording};
    LlmCompletion done = client->Call(request);
    ASSERT_TRUE(done.reply.has_value()) << done.error->message;
    EXPECT_EQ(done.reply->text, std::string("answer to ") + prompt);
    EXPECT_EQ(done.source, CallSource::kReplay);
  }
  ChatRequest unknown = Request("four");
  unknown.task = "a task never recorded";
  unknown.model = {"replay", recording};
  LlmCompletion missing = client->Call(unknown);
  ASSERT_TRUE(missing.error.has_value());
  EXPECT_EQ(missing.error->kind, LlmErrorKind::kReplayMiss);
  EXPECT_NE(missing.error->message.find("not in the recording"), std::string::npos);
  EXPECT_EQ(client->ledger().Total().cost_usd, 0);
}

TEST_F(LlmClientTest, SpeaksAnthropicMessages) {
  StartServer([](const FakeHttpRequest& request, int) {
    auto header = [&](const char* name) {
      auto it = request.headers.find(name);
      return it == request.headers.end() ? std::string() : it->second;
    };
    if (request.path != "/v1/messages" || header("x-api-key") != kKey ||
        header("anthropic-version").empty()) {
      return FakeReply{.status = 404, .body = "wrong path or headers"};
    }
    return FakeReply{.body = AnthropicMessageBody("claude says hi", 50, 7, 20)};
  });
  auto client = Client(Options());
  ChatRequest request = Request();
  request.model = {"anthropic", "claude-sonnet-4-5"};
  LlmCompletion done = client->Call(request);
  ASSERT_TRUE(done.reply.has_value()) << done.error->message;
  EXPECT_EQ(done.reply->text, "claude says hi");
  EXPECT_EQ(done.reply->usage.input, 70);
  EXPECT_EQ(done.reply->usage.cached_input, 20);
  auto body = nlohmann::json::parse(server_->requests().at(0).body);
  EXPECT_EQ(body["system"], "you write kernels");
}

TEST_F(LlmClientTest, StoppingWithCallsInFlightNeitherHangsNorLeaks) {
  StartServer([](const FakeHttpRequest&, int) {
    return FakeReply{.body = OpenAiChatBody("never", 1, 1), .delay_s = 60};
  });
  auto client = Client(Options());
  for (int i = 0; i < 10; ++i) {
    client->Submit(Request("p", i));
  }
  while (server_->request_count() < 8) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const auto start = steady_clock::now();
  client.reset();
  EXPECT_LT(steady_clock::now() - start, std::chrono::seconds(2));
}

}  // namespace
}  // namespace adaexplore
