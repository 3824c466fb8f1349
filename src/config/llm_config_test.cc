#include "config/llm_config.h"

#include <gtest/gtest.h>

#include "config/config.h"

namespace adaexplore {
namespace {

TEST(LlmConfigTest, ReadsProvidersRetriesBudgetAndPrices) {
  Config config;
  Status status = ApplyConfigText(R"(
[llm]
model = "openai:gpt-5-mini"
max_attempts = 3
initial_backoff_s = 0.5
budget_usd = 25
cache = false
record = "run.jsonl"
[llm.openai]
base_url = "http://localhost:8000/v1"
concurrency = 64
max_tokens_field = "max_tokens"
[llm.anthropic]
api_key_env = "MY_CLAUDE_KEY"
timeout_s = 120
[llm.prices."openai:gpt-5-mini"]
input_per_mtok = 0.25
output_per_mtok = 2
)",
                                  "test.toml", config);
  ASSERT_TRUE(status.ok()) << status.ToString();
  const LlmOptions& llm = config.llm;
  EXPECT_EQ(llm.model, "openai:gpt-5-mini");
  EXPECT_EQ(llm.retry.max_attempts, 3);
  EXPECT_DOUBLE_EQ(llm.retry.initial_backoff_s, 0.5);
  EXPECT_DOUBLE_EQ(llm.budget.max_usd, 25);
  EXPECT_FALSE(llm.cache_enabled);
  EXPECT_EQ(llm.record_path, "run.jsonl");
  EXPECT_EQ(llm.providers.at("openai").base_url, "http://localhost:8000/v1");
  EXPECT_EQ(llm.providers.at("openai").concurrency, 64);
  EXPECT_EQ(llm.providers.at("openai").max_tokens_field, "max_tokens");
  EXPECT_EQ(llm.providers.at("anthropic").api_key_env, "MY_CLAUDE_KEY");
  EXPECT_DOUBLE_EQ(llm.providers.at("anthropic").timeout_s, 120);
  std::optional<Price> price = llm.prices.Find({"openai", "gpt-5-mini"});
  ASSERT_TRUE(price.has_value());
  EXPECT_DOUBLE_EQ(price->output_per_mtok, 2);
  EXPECT_DOUBLE_EQ(price->cached_input_per_mtok, 0.25);  // No discount unless given.
  EXPECT_DOUBLE_EQ(price->cache_write_per_mtok, 0.25);   // Nor a surcharge.
}

TEST(LlmConfigTest, RefusesTyposKeysInTheFileAndBadValues) {
  for (const char* text : {
           "[llm]\nmodle = \"openai:x\"\n",
           "[llm.openai]\nconcurency = 4\n",
           "[llm.openai]\napi_key = \"sk-123\"\n",
           "[llm.prices.\"openai:x\"]\ninput = 1\n",
           "[llm]\nmodel = \"gpt-5\"\n",
           "[llm]\nmax_attempts = 0\n",
           "[llm.openai]\nconcurrency = 0\n",
           "[llm.gemini]\nbase_url = \"x\"\n",
       }) {
    Config config;
    EXPECT_FALSE(ApplyConfigText(text, "t.toml", config).ok()) << text;
  }
  Config config;
  Status key_in_file = ApplyConfigText("[llm.openai]\napi_key = \"sk-123\"\n", "t.toml", config);
  EXPECT_EQ(key_in_file.message().find("sk-123"), std::string::npos);
}

}  // namespace
}  // namespace adaexplore
