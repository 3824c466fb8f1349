#include "llm/ledger.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace adaexplore {
namespace {

TEST(LedgerTest, CostsFollowThePriceTableWithCachedInputCheaper) {
  PriceTable prices;
  prices.Set("openai:gpt-5-mini",
             {.input_per_mtok = 0.25, .cached_input_per_mtok = 0.025, .output_per_mtok = 2.0});
  // 1,000,000 input of which 400,000 cached; 100,000 output:
  // 600,000 * 0.25 + 400,000 * 0.025 + 100,000 * 2.0 = 0.15 + 0.01 + 0.2 = 0.36 dollars.
  Ledger ledger(prices);
  LedgerEntry recorded =
      ledger.Record({.role = LlmRole::kProposer,
                     .task = "t1",
                     .model = {"openai", "gpt-5-mini"},
                     .usage = {.input = 1'000'000, .output = 100'000, .cached_input = 400'000}});
  ASSERT_TRUE(recorded.cost_usd.has_value());
  EXPECT_NEAR(*recorded.cost_usd, 0.36, 1e-12);
}

// Anthropic's prompt cache: reads at a tenth of input, writes at 1.25 times; the rest as input.
TEST(LedgerTest, CacheReadsAndWritesArePricedAtTheirOwnRates) {
  PriceTable prices;
  prices.Set("anthropic:claude-sonnet-4-5", {.input_per_mtok = 3,
                                             .cached_input_per_mtok = 0.3,
                                             .cache_write_per_mtok = 3.75,
                                             .output_per_mtok = 15});
  Ledger ledger(prices);
  // 1,000,000 input: 600,000 read from the cache, 300,000 written to it, 100,000 plain;
  // 10,000 output: 0.3 + 0.18 + 1.125 + 0.15 = 1.755 dollars.
  LedgerEntry recorded = ledger.Record(
      {.role = LlmRole::kProposer,
       .task = "t1",
       .model = {"anthropic", "claude-sonnet-4-5"},
       .usage = {
           .input = 1'000'000, .output = 10'000, .cached_input = 600'000, .cache_write = 300'000}});
  ASSERT_TRUE(recorded.cost_usd.has_value());
  EXPECT_NEAR(*recorded.cost_usd, 1.755, 1e-12);
  const nlohmann::json totals = ledger.Total().ToJson();
  EXPECT_EQ(totals["cached_input_tokens"], 600'000);
  EXPECT_EQ(totals["cache_write_tokens"], 300'000);
}

TEST(LedgerTest, SumsPerRoleTaskAndModel) {
  PriceTable prices;
  prices.Set("gpt-5-mini", {.input_per_mtok = 1, .output_per_mtok = 10});  // Bare model name.
  Ledger ledger(prices);
  ledger.Record({.role = LlmRole::kProposer,
                 .task = "a",
                 .model = {"openai", "gpt-5-mini"},
                 .usage = {.input = 1000, .output = 100},
                 .latency_s = 2,
                 .attempts = 3});
  ledger.Record({.role = LlmRole::kTuner,
                 .task = "a",
                 .model = {"openai", "gpt-5-mini"},
                 .usage = {.input = 2000, .output = 200},
                 .latency_s = 4});
  ledger.Record({.role = LlmRole::kTuner,
                 .task = "b",
                 .model = {"anthropic", "claude"},
                 .usage = {.input = 10, .output = 10}});
  ledger.Record({.role = LlmRole::kTuner,
                 .task = "b",
                 .model = {"openai", "gpt-5-mini"},
                 .source = CallSource::kCache,
                 .usage = {.input = 5000, .output = 500}});
  ledger.Record({.role = LlmRole::kJudge, .model = {"openai", "gpt-5-mini"}, .failed = true});

  LedgerTotals total = ledger.Total();
  EXPECT_EQ(total.calls, 5);
  EXPECT_EQ(total.failed_calls, 1);
  EXPECT_EQ(total.retries, 2);
  EXPECT_EQ(total.from_cache, 1);
  EXPECT_EQ(total.input_tokens, 1000 + 2000 + 10 + 5000);
  EXPECT_EQ(total.unpriced_calls, 1);  // The Anthropic call.
  // (1000 * 1 + 100 * 10) / 1e6 + (2000 + 2000) / 1e6; the cache hit is free.
  EXPECT_NEAR(total.cost_usd, 0.002 + 0.004, 1e-12);

  auto by_role = ledger.ByRole();
  EXPECT_EQ(by_role["proposer"].calls, 1);
  EXPECT_EQ(by_role["tuner"].calls, 3);
  EXPECT_EQ(by_role["judge"].failed_calls, 1);
  auto by_task = ledger.ByTask();
  EXPECT_NEAR(by_task["a"].cost_usd, 0.006, 1e-12);
  EXPECT_EQ(by_task["-"].calls, 1);
  auto by_model = ledger.ByModel();
  EXPECT_EQ(by_model["anthropic:claude"].unpriced_calls, 1);
  nlohmann::json summary = ledger.Summary();
  EXPECT_EQ(summary["total"]["calls"], 5);
  EXPECT_TRUE(summary["by_model"]["anthropic:claude"]["cost_usd"].is_null());
}

TEST(LedgerTest, BudgetInDollarsAndTokens) {
  PriceTable prices;
  prices.Set("openai:m", {.input_per_mtok = 1e6});  // A dollar per input token.
  Ledger dollars(prices, {.max_usd = 10});
  EXPECT_FALSE(dollars.BudgetExhausted());
  dollars.Record({.model = {"openai", "m"}, .usage = {.input = 9}});
  EXPECT_FALSE(dollars.BudgetExhausted());
  dollars.Record({.model = {"openai", "m"}, .usage = {.input = 1}});
  ASSERT_TRUE(dollars.BudgetExhausted());
  EXPECT_NE(dollars.BudgetExhausted()->find("$10.00"), std::string::npos);
  EXPECT_TRUE(dollars.CheckPriced({"openai", "m"}).ok());
  EXPECT_FALSE(dollars.CheckPriced({"openai", "unpriced"}).ok());
  EXPECT_TRUE(dollars.CheckPriced({"replay", "file.jsonl"}).ok());

  Ledger tokens({}, {.max_tokens = 100});
  tokens.Record({.model = {"openai", "x"}, .usage = {.input = 60, .output = 39}});
  EXPECT_FALSE(tokens.BudgetExhausted());
  tokens.Record({.model = {"openai", "x"}, .usage = {.input = 1}});
  EXPECT_TRUE(tokens.BudgetExhausted());
  EXPECT_TRUE(tokens.CheckPriced({"openai", "unpriced"}).ok());  // Token budgets need no price.
}

TEST(LedgerTest, SpendingElsewhereCountsTowardTheBudgetButNotTheTotals) {
  // A resumed run, or an adapt's later wave: part of the budget went before this ledger.
  Ledger tokens({}, {.max_tokens = 100});
  tokens.AddSpentElsewhere(0, 90);
  EXPECT_FALSE(tokens.BudgetExhausted());
  tokens.Record({.model = {"openai", "x"}, .usage = {.input = 10}});
  ASSERT_TRUE(tokens.BudgetExhausted());
  EXPECT_NE(tokens.BudgetExhausted()->find("100 so far"), std::string::npos);
  EXPECT_EQ(tokens.Total().input_tokens, 10);
  EXPECT_EQ(tokens.Summary()["budget"]["spent_elsewhere_tokens"], 90);

  Ledger dollars({}, {.max_usd = 5});
  dollars.AddSpentElsewhere(5.5, 0);
  EXPECT_TRUE(dollars.BudgetExhausted());
}

TEST(LedgerTest, HugeCountsFromAnEarlierSessionSaturateTheBudget) {
  // A database written before counts were clamped can hold 2^63-1 tokens for one call.
  Ledger tokens({}, {.max_tokens = 100});
  tokens.AddSpentElsewhere(0, INT64_MAX);
  tokens.AddSpentElsewhere(0, INT64_MAX);
  tokens.Record({.model = {"openai", "x"}, .usage = {.input = 10, .output = 5}});
  ASSERT_TRUE(tokens.BudgetExhausted());
  EXPECT_NE(tokens.BudgetExhausted()->find("9223372036854775807 so far"), std::string::npos);
  EXPECT_EQ(tokens.Summary()["budget"]["spent_elsewhere_tokens"], INT64_MAX);
}

}  // namespace
}  // namespace adaexplore
