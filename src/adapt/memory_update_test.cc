// UpdateMemory against a real HTTP server on loopback that plays the rule writer and the judge.

#include "adapt/memory_update.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fake_llm_server.h"
#include "sys/fs.h"

namespace adaexplore {
namespace {

constexpr const char* kKeyVariable = "ADAEXPLORE_TEST_LLM_KEY";

Failure MakeFailure(std::string task, std::string error, std::string kernel = "def k(x_ptr):\n") {
  return {.task = std::move(task),
          .model = "openai:fake",
          .verdict = "compile_error",
          .error = std::move(error),
          .kernel = std::move(kernel),
          .source = "run 1 node 1"};
}

class MemoryUpdateTest : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv(kKeyVariable, "sk-test", 1); }
  void TearDown() override { ::unsetenv(kKeyVariable); }

  // Replies by what the prompt shows: the writer's by the error in it, the judge's by the rule.
  static FakeReply Reply(const FakeHttpRequest& request) {
    const nlohmann::json body = nlohmann::json::parse(request.body);
    const std::string prompt = body["messages"].back()["content"].get<std::string>();
    std::string text;
    if (prompt.find("Decide whether a new rule") != std::string::npos) {
      text = prompt.find("like a function") != std::string::npos
                 ? R"({"is_duplicate": true, "matched_index": 1, "confidence": 0.9})"
                 : R"({"is_duplicate": false, "matched_index": 0, "confidence": 0.9})";
    } else if (prompt.find("not callable") != std::string::npos) {
      text = prompt.find("tl.float32(acc)") != std::string::npos
                 ? R"({"rule": "You cannot call tl.float32 like a function in a kernel."})"
                 : R"({"rule": "You cannot call tl.float32 as a function inside a kernel."})";
    } else if (prompt.find("Break") != std::string::npos) {
      text = "You cannot use break inside a Triton kernel.";
    } else if (prompt.find("PADDING_LEFT") != std::string::npos) {
      text = R"({"rule": "You cannot reference PADDING_LEFT before defining it."})";
    } else if (prompt.find("mismatched dims") != std::string::npos) {
      text = R"({"rule": "no guidance"})";
    } else {
      text = "I have no idea.";
    }
    return FakeReply{.body = OpenAiChatBody(text, 100, 20)};
  }

  void SetUpClient() {
    auto server = FakeLlmServer::Start([](const FakeHttpRequest& r, int) { return Reply(r); });
    ASSERT_TRUE(server.ok());
    server_ = *std::move(server);
    LlmOptions options;
    options.providers["openai"] = ProviderSettings{.name = "openai",
                                                   .base_url = server_->base_url(),
                                                   .api_key_env = kKeyVariable,
                                                   .concurrency = 8,
                                                   .timeout_s = 10};
    options.cache_enabled = false;
    auto client = LlmClient::Create(std::move(options));
    ASSERT_TRUE(client.ok());
    client_ = *std::move(client);
  }

  std::unique_ptr<FakeLlmServer> server_;
  std::unique_ptr<LlmClient> client_;
  TempDir dir_ = *TempDir::Create("memory-update");
};

TEST_F(MemoryUpdateTest, OneCallPerClusterThenDedup) {
  SetUpClient();
  Result<SkillMemory> memory = SkillMemory::Open(dir_.path() + "/m.sqlite");
  ASSERT_TRUE(memory.ok());
  Result<RulePrompts> prompts = RulePrompts::Load(std::string(ADAEXPLORE_SOURCE_DIR) + "/prompts");
  ASSERT_TRUE(prompts.ok()) << prompts.status().ToString();

  std::vector<Failure> failures = {
      MakeFailure("a", "CompilationError: TypeError(\"'dtype' object is not callable\")"),
      MakeFailure("b", "CompilationError: TypeError(\"'dtype' object is not callable\")"),
      MakeFailure("c", "CompilationError: TypeError(\"'dtype' object is not callable\")"),
      MakeFailure("a", "UnsupportedLanguageConstruct: unsupported AST node type: Break"),
      MakeFailure("b", "NameError: name 'PADDING_LEFT' is not defined", "PADDING_LEFT = 1\n"),
      MakeFailure("c", "ValueError: mismatched dims"),
      MakeFailure("d", "RuntimeError: something odd"),
  };
  std::vector<FailureCluster> clusters = ClusterFailures(failures);
  ASSERT_EQ(clusters.size(), 5u);  // 7 failures, 5 signatures: 5 writer calls, not 7.

  Result<MemoryUpdateStats> stats =
      UpdateMemory(*memory, *client_, *prompts, clusters,
                   {.writer_model = {"openai", "fake"}, .judge_model = {"openai", "fake-judge"}});
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->failures, 7);
  EXPECT_EQ(stats->writer_calls, 5);
  EXPECT_EQ(stats->judge_calls, 0);  // An empty memory needs no judge.
  EXPECT_EQ(stats->added, 2);
  EXPECT_EQ(stats->rejected, 1);  // Names PADDING_LEFT, which the failing program defines.
  EXPECT_EQ(stats->no_guidance, 1);
  EXPECT_EQ(stats->failed_calls, 1);  // "I have no idea."
  std::vector<Rule> rules = *memory->List(0);
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].text, "You cannot call tl.float32 as a function inside a kernel.");
  EXPECT_EQ(rules[0].count, 3);  // The cluster's three failures.
  EXPECT_EQ(memory->Support(rules[0].id)->size(), 3u);

  // A second round: a rephrasing is judged a duplicate and reinforces; the same text reinforces
  // without a judge.
  std::vector<FailureCluster> more = ClusterFailures({
      MakeFailure("e",
                  "CompilationError: TypeError(\"'dtype' object is not callable\")\n"
                  "    tl.float32(acc)"),
      MakeFailure("f", "UnsupportedLanguageConstruct: unsupported AST node type: Break"),
  });
  stats =
      UpdateMemory(*memory, *client_, *prompts, more,
                   {.writer_model = {"openai", "fake"}, .judge_model = {"openai", "fake-judge"}});
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->reinforced, 2);
  EXPECT_EQ(stats->judge_calls, 1);
  EXPECT_EQ(stats->added, 0);
  rules = *memory->List(0);
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].count, 4);
  EXPECT_EQ(rules[1].count, 2);
  // Each role called its own model ([llm.roles]): the writers "fake", the one judge "fake-judge".
  std::map<std::string, int> models;
  for (const FakeHttpRequest& r : server_->requests()) {
    ++models[nlohmann::json::parse(r.body)["model"].get<std::string>()];
  }
  EXPECT_EQ(models, (std::map<std::string, int>{{"fake", 7}, {"fake-judge", 1}}));
}

}  // namespace
}  // namespace adaexplore
