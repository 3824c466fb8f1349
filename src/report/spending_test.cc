#include "report/spending.h"

#include <gtest/gtest.h>

#include "sys/fs.h"

namespace adaexplore {
namespace {

CallRecord Call(std::string role, std::string model, std::optional<double> usd,
                std::string error = "") {
  return {.role = std::move(role),
          .model = std::move(model),
          .reply = error.empty() ? "reply" : "",
          .error = std::move(error),
          .usage = {{"input", 100}, {"output", 10}},
          .cost_usd = usd,
          .source = "live"};
}

StepRecord Node(int node, std::optional<double> speedup, std::vector<CallRecord> calls) {
  return {.node = node,
          .parent = node - 1,
          .move = calls.size() > 1 ? "small_step" : "large_step",
          .kernel = "class ModelNew: pass  # " + std::to_string(node),
          .verdict = speedup ? "correct" : "incorrect",
          .compiled = true,
          .correct = speedup.has_value(),
          .speedup = speedup,
          .calls = std::move(calls)};
}

class SpendingTest : public ::testing::Test {
 protected:
  TempDir dir_ = *TempDir::Create("spending");
  RunDb db_ = *RunDb::Open(dir_.path() + "/run.sqlite");
};

TEST_F(SpendingTest, KernelsGoToTheModelAndRoleThatWroteThemAndTheBestsCostIsSummed) {
  const int64_t run = *db_.CreateRun({.method = "adaexplore", .model = "big:m"});
  ASSERT_TRUE(db_.AddTask(run, {.name = "t", .source = "s", .steps = 4}).ok());
  const std::vector<StepRecord> steps = {
      Node(1, 1.5, {Call("proposer", "big:m", 0.10)}),  // Improved.
      Node(2, 1.2, {Call("reviser", "big:m", 0.02), Call("tuner", "small:m", 0.01)}),
      Node(3, 2.0, {Call("reviser", "big:m", 0.02), Call("tuner", "small:m", 0.01)}),  // Best.
      Node(4, std::nullopt, {Call("proposer", "", 0.10)}),  // Stored before models were kept.
  };
  SpendingTally tally("big:m");
  for (const StepRecord& step : steps) {
    ASSERT_TRUE(db_.RecordStep(run, "t", step).ok());
  }
  tally.AddTask("t", steps);
  const nlohmann::json cost = *db_.CallTotals(run);
  RunSpending s = *tally.Finish(db_, run, cost);
  ASSERT_EQ(s.by_model_role.size(), 3u);
  const ModelRoleSpend& proposer = s.by_model_role[0];
  EXPECT_EQ(proposer.model, "big:m");
  EXPECT_EQ(proposer.role, "proposer");
  EXPECT_EQ(proposer.totals["calls"], 2);
  EXPECT_EQ(proposer.kernels, 2);  // Node 4's model is the run's.
  EXPECT_EQ(proposer.correct, 1);
  EXPECT_EQ(proposer.improved, 1);
  const ModelRoleSpend& reviser = s.by_model_role[1];
  EXPECT_EQ(reviser.role, "reviser");
  EXPECT_EQ(reviser.kernels, 0);  // Advice writes no kernel.
  const ModelRoleSpend& tuner = s.by_model_role[2];
  EXPECT_EQ(tuner.model, "small:m");
  EXPECT_EQ(tuner.kernels, 2);
  EXPECT_EQ(tuner.improved, 1);
  EXPECT_EQ(s.improved, 2);
  EXPECT_NEAR(*s.cost_per_improved_usd, 0.26 / 2, 1e-12);
  ASSERT_EQ(s.tasks.size(), 1u);
  EXPECT_EQ(s.tasks[0].best_node, 3);
  EXPECT_EQ(s.tasks[0].calls_to_best, 5);
  EXPECT_NEAR(*s.tasks[0].cost_to_best_usd, 0.16, 1e-12);
  const std::string md = SpendingMarkdown(run, s);
  EXPECT_NE(md.find("| small:m | tuner | 2 | 200 (0, 0) / 20 | $0.0200 | 2 | 2 | 1 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("cost per improved kernel: $0.1300"), std::string::npos) << md;
  EXPECT_EQ(SpendingJson(s)["tasks"][0]["best_node"], 3);
}

TEST_F(SpendingTest, AKernelCorrectAtTheTasksSizesOnlyIsNotTheBestUnlessTheRunSaysSo) {
  const int64_t run = *db_.CreateRun({.method = "adaexplore", .model = "big:m"});
  ASSERT_TRUE(db_.AddTask(run, {.name = "t", .source = "s", .steps = 2}).ok());
  StepRecord baked = Node(2, 5.0, {Call("proposer", "big:m", 0.10)});
  baked.result = {{"verdict", "correct"},
                  {"size_checks", {{{"set", "uneven"}, {"outcome", "wrong"}, {"detail", "x"}}}}};
  const std::vector<StepRecord> steps = {Node(1, 2.0, {Call("proposer", "big:m", 0.10)}), baked};
  for (const StepRecord& step : steps) {
    ASSERT_TRUE(db_.RecordStep(run, "t", step).ok());
  }
  for (const bool allowed : {false, true}) {
    SpendingTally tally("big:m", allowed);
    tally.AddTask("t", steps);
    const RunSpending s = *tally.Finish(db_, run, *db_.CallTotals(run));
    EXPECT_EQ(s.tasks[0].best_node, allowed ? 2 : 1);
    EXPECT_EQ(s.improved, allowed ? 2 : 1);
  }
}

TEST_F(SpendingTest, AnUnpricedCallLeavesNoFigureRatherThanAnUnderstatedOne) {
  const int64_t run = *db_.CreateRun({.method = "adaexplore", .model = "free:m"});
  ASSERT_TRUE(db_.AddTask(run, {.name = "t", .source = "s", .steps = 2}).ok());
  const std::vector<StepRecord> steps = {Node(1, 1.1, {Call("proposer", "free:m", std::nullopt)}),
                                         Node(2, std::nullopt, {Call("proposer", "free:m", 0.5)})};
  SpendingTally tally("free:m");
  for (const StepRecord& step : steps) {
    ASSERT_TRUE(db_.RecordStep(run, "t", step).ok());
  }
  tally.AddTask("t", steps);
  RunSpending s = *tally.Finish(db_, run, *db_.CallTotals(run));
  EXPECT_EQ(s.improved, 1);
  EXPECT_FALSE(s.cost_per_improved_usd.has_value());
  EXPECT_FALSE(s.tasks[0].cost_to_best_usd.has_value());
  EXPECT_NE(SpendingMarkdown(run, s).find("| t | 1 | 1 | - |"), std::string::npos);
}

TEST(SpendingLineTest, TheRunsLineSaysWhatTheCacheTookAndWhatWasUnpriced) {
  EXPECT_EQ(CallTotalsLine({{"calls", 3},
                            {"input_tokens", 900},
                            {"cached_input_tokens", 600},
                            {"cache_write_tokens", 100},
                            {"output_tokens", 30},
                            {"cost_usd", 0.0123},
                            {"unpriced_calls", 0}}),
            "LLM: 3 calls, 900 tokens in (600 read from the prompt cache, 100 written to it) / 30 "
            "out, $0.01");
  EXPECT_EQ(CallTotalsLine({{"calls", 2},
                            {"input_tokens", 10},
                            {"output_tokens", 4},
                            {"cost_usd", nullptr},
                            {"unpriced_calls", 2}}),
            "LLM: 2 calls, 10 tokens in / 4 out, unknown");
  EXPECT_EQ(CallCostText({{"calls", 2}, {"cost_usd", 1.5}, {"unpriced_calls", 1}}), ">= $1.50");
}

}  // namespace
}  // namespace adaexplore
