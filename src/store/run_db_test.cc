#include "store/run_db.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <thread>

#include "store/stored_json.h"
#include "sys/fs.h"

namespace adaexplore {
namespace {

StepRecord Step(int node, int parent = 0) {
  StepRecord step{.node = node,
                  .parent = parent,
                  .move = parent == 0 ? "large_step" : "small_step",
                  .context = {parent},
                  .kernel = "class ModelNew: pass  # " + std::to_string(node),
                  .verdict = node % 3 == 0 ? "incorrect" : "correct",
                  .compiled = true,
                  .correct = node % 3 != 0,
                  .result = {{"verdict", node % 3 == 0 ? "incorrect" : "correct"}}};
  if (step.correct) {
    step.speedup = 1.0 + node / 10.0;
  }
  step.calls = {CallRecord{.role = "reviser",
                           .messages = {{{"role", "user"}, {"content", "r"}}},
                           .reply = "advice",
                           .usage = {{"input", 10}},
                           .cost_usd = 0.001,
                           .latency_s = 1.5,
                           .attempts = 1,
                           .source = "live"},
                CallRecord{.role = "tuner",
                           .messages = {{{"role", "user"}, {"content", "t"}}},
                           .reply = "<old_str_1>a</old_str_1>",
                           .usage = {{"input", 20}},
                           .latency_s = 2.5,
                           .attempts = 2,
                           .source = "cache"}};
  return step;
}

class RunDbTest : public ::testing::Test {
 protected:
  TempDir dir_ = *TempDir::Create("run-db");
  std::string path_ = dir_.path() + "/run.sqlite";
};

TEST_F(RunDbTest, StoresRunsTasksStepsAndCalls) {
  RunDb db = *RunDb::Open(path_);
  EXPECT_FALSE(db.LatestRun()->has_value());
  const int64_t run = *db.CreateRun(
      {.method = "adaexplore", .model = "openai:gpt-5-mini", .options = {{"steps", 50}}});
  ASSERT_TRUE(db.AddTask(run, {.name = "19_ReLU", .source = "src", .steps = 50}).ok());
  ASSERT_TRUE(db.RecordStep(run, "19_ReLU", Step(1)).ok());
  ASSERT_TRUE(db.RecordStep(run, "19_ReLU", Step(2, 1)).ok());
  ASSERT_TRUE(db.RecordStep(run, "19_ReLU", Step(3, 2)).ok());

  std::optional<RunInfo> latest = *db.LatestRun();
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->id, run);
  EXPECT_EQ(latest->options["steps"], 50);
  std::vector<StepRecord> steps = *db.Steps(run, "19_ReLU");
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[1].parent, 1);
  EXPECT_EQ(steps[1].move, "small_step");
  EXPECT_EQ(steps[1].context, (std::vector<int>{1}));
  EXPECT_NEAR(*steps[1].speedup, 1.2, 1e-12);
  EXPECT_FALSE(steps[2].speedup.has_value());
  EXPECT_EQ(steps[2].result["verdict"], "incorrect");
  ASSERT_EQ(steps[2].calls.size(), 2u);
  EXPECT_EQ(steps[2].calls[1].role, "tuner");
  EXPECT_EQ(steps[2].calls[1].attempts, 2);
  EXPECT_FALSE(steps[2].calls[1].cost_usd.has_value());
  EXPECT_EQ(steps[2].calls[0].messages[0]["content"], "r");

  nlohmann::json totals = *db.CallTotals(run);
  EXPECT_EQ(totals["calls"], 6);
  EXPECT_EQ(totals["input_tokens"], 3 * (10 + 20));
  EXPECT_NEAR(totals["cost_usd"].get<double>(), 3 * 0.001, 1e-12);
  EXPECT_EQ(totals["unpriced_calls"], 0);  // The unpriced calls came from the cache.

  ASSERT_TRUE(db.SetTaskStatus(run, "19_ReLU", WorkStatus::kFinished).ok());
  ASSERT_TRUE(db.SetRunStatus(run, WorkStatus::kFinished).ok());
  EXPECT_EQ((*db.Tasks(run))[0].status, WorkStatus::kFinished);
  EXPECT_EQ((*db.FindRun(run))->status, WorkStatus::kFinished);

  // --resume --steps N: the budget grows, the run and its task run again, the rest is kept.
  ASSERT_TRUE(db.ExtendRun(run, 60).ok());
  const RunInfo extended = **db.FindRun(run);
  EXPECT_EQ(extended.status, WorkStatus::kRunning);
  EXPECT_EQ(extended.options["steps"], 60);
  EXPECT_EQ((*db.Tasks(run))[0].steps, 60);
  EXPECT_EQ((*db.Tasks(run))[0].status, WorkStatus::kRunning);
  EXPECT_FALSE(db.ExtendRun(run + 100, 9).ok());
}

TEST_F(RunDbTest, AStepIsNeverRecordedTwiceAndAChangedTaskIsRefused) {
  RunDb db = *RunDb::Open(path_);
  const int64_t run = *db.CreateRun({.method = "ir", .model = "replay:x.jsonl"});
  ASSERT_TRUE(db.AddTask(run, {.name = "t", .source = "v1", .steps = 5}).ok());
  ASSERT_TRUE(db.AddTask(run, {.name = "t", .source = "v1", .steps = 5}).ok());  // A resume.
  Status changed = db.AddTask(run, {.name = "t", .source = "v2", .steps = 5});
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.message().find("has changed"), std::string::npos);
  ASSERT_TRUE(db.RecordStep(run, "t", Step(1)).ok());
  EXPECT_FALSE(db.RecordStep(run, "t", Step(1)).ok());
  // The failed transaction left nothing behind: still one node with its two calls.
  std::vector<StepRecord> steps = *db.Steps(run, "t");
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].calls.size(), 2u);
}

TEST_F(RunDbTest, KillNineLeavesEveryCompletedStepWholeAndResumeContinues) {
  int64_t run = 0;
  {
    RunDb db = *RunDb::Open(path_);
    run = *db.CreateRun({.method = "adaexplore", .model = "openai:m"});
    ASSERT_TRUE(db.AddTask(run, {.name = "t", .source = "s", .steps = 100000}).ok());
  }
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    RunDb db = *RunDb::Open(path_);
    for (int node = 1;; ++node) {
      if (!db.RecordStep(run, "t", Step(node, node - 1)).ok()) {
        ::_exit(3);
      }
    }
  }
  RunDb reader = *RunDb::Open(path_);
  for (int i = 0; i < 2000; ++i) {
    Result<std::vector<StepRecord>> steps = reader.Steps(run, "t");
    if (steps.ok() && steps->size() >= 40) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));

  RunDb db = *RunDb::Open(path_);
  std::vector<StepRecord> steps = *db.Steps(run, "t");
  ASSERT_GE(steps.size(), 40u);
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(steps[i].node, static_cast<int>(i) + 1);                 // No gap.
    EXPECT_EQ(steps[i].calls.size(), 2u) << "node " << steps[i].node;  // No half step.
    EXPECT_EQ(steps[i].kernel, Step(steps[i].node).kernel);
  }
  const int next = static_cast<int>(steps.size()) + 1;
  EXPECT_FALSE(db.RecordStep(run, "t", Step(next - 1, next - 2)).ok());  // Never repeated.
  EXPECT_TRUE(db.RecordStep(run, "t", Step(next, next - 1)).ok());       // Continues.
  std::printf("kill -9 after %zu complete steps; resumed at step %d\n", steps.size(), next);
}

TEST_F(RunDbTest, ANewerSchemaIsRefused) {
  {
    Db db = *Db::Open(path_);
    ASSERT_TRUE(db.Execute("CREATE TABLE run_meta (name TEXT PRIMARY KEY, value TEXT);"
                           "INSERT INTO run_meta VALUES ('schema_version', '99');")
                    .ok());
  }
  Result<RunDb> db = RunDb::Open(path_);
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.status().message().find("schema version 99"), std::string::npos);
}

TEST_F(RunDbTest, BaselinesOnePerKey) {
  Result<RunDb> db = RunDb::Open(path_);
  ASSERT_TRUE(db.ok());
  EXPECT_TRUE(db->Baselines()->empty());
  const nlohmann::json a = {{"key", "k1"},
                            {"task", "t1"},
                            {"task_sha256", "s1"},
                            {"profile", "strict"},
                            {"eager_ms", 1.0}};
  nlohmann::json b = a;
  b["key"] = "k2";
  b["task"] = "t2";
  ASSERT_TRUE(db->RecordBaseline(a).ok());
  ASSERT_TRUE(db->RecordBaseline(b).ok());
  nlohmann::json a_again = a;
  a_again["eager_ms"] = 2.0;
  ASSERT_TRUE(db->RecordBaseline(a_again).ok());
  Result<std::vector<nlohmann::json>> all = db->Baselines();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  double k1 = 0;
  for (const nlohmann::json& row : *all) {
    if (row["key"] == "k1") {
      k1 = row["eager_ms"].get<double>();
    }
  }
  EXPECT_EQ(k1, 2.0);
}

TEST_F(RunDbTest, AnAnsweredCallIsCountedBeforeItsStepAndOnlyOnce) {
  RunDb db = *RunDb::Open(path_);
  const int64_t run = *db.CreateRun({.method = "ps", .model = "openai:m"});
  ASSERT_TRUE(db.AddTask(run, {.name = "t", .source = "s", .steps = 5}).ok());
  StepRecord step = Step(1);
  for (CallRecord& call : step.calls) {  // As the runner does when each reply arrives.
    call.cost_id = *db.RecordCallCost(run, "t", 1, call);
  }
  nlohmann::json before_step = *db.CallTotals(run);
  EXPECT_EQ(before_step["calls"], 2);
  EXPECT_EQ(before_step["input_tokens"], 30);
  EXPECT_NEAR(before_step["cost_usd"].get<double>(), 0.001, 1e-12);
  ASSERT_TRUE(db.RecordStep(run, "t", step).ok());
  EXPECT_EQ(*db.CallTotals(run), before_step);  // Moved to llm_calls, not counted twice.
  // The next step's reply is in when the run is killed: its step is never recorded, its cost is.
  const CallRecord lost = Step(2).calls[0];
  ASSERT_TRUE(db.RecordCallCost(run, "t", 2, lost).ok());
  RunDb reopened = *RunDb::Open(path_);
  nlohmann::json after_kill = *reopened.CallTotals(run);
  EXPECT_EQ(after_kill["calls"], 3);
  EXPECT_EQ(after_kill["input_tokens"], 40);
  EXPECT_NEAR(after_kill["cost_usd"].get<double>(), 0.002, 1e-12);
  EXPECT_EQ(reopened.Steps(run, "t")->size(), 1u);
}

TEST_F(RunDbTest, TotalsPerModelAndRoleCountUnrecordedCalls) {
  RunDb db = *RunDb::Open(path_);
  const int64_t run = *db.CreateRun({.method = "adaexplore", .model = "anthropic:big"});
  ASSERT_TRUE(db.AddTask(run, {.name = "t", .source = "s", .steps = 5}).ok());
  StepRecord step = Step(1);
  step.calls[0].model = "anthropic:big";  // The reviser on the run's model,
  step.calls[1].model = "openai:small";   // the tuner on its own.
  ASSERT_TRUE(db.RecordStep(run, "t", step).ok());
  CallRecord lost = Step(2).calls[1];  // A tuner's reply whose step a kill never recorded.
  lost.model = "openai:small";
  ASSERT_TRUE(db.RecordCallCost(run, "t", 2, lost).ok());
  std::vector<nlohmann::json> rows = *db.CallTotalsByModelRole(run);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["model"], "anthropic:big");
  EXPECT_EQ(rows[0]["role"], "reviser");
  EXPECT_EQ(rows[0]["calls"], 1);
  EXPECT_NEAR(rows[0]["cost_usd"].get<double>(), 0.001, 1e-12);
  EXPECT_EQ(rows[1]["model"], "openai:small");
  EXPECT_EQ(rows[1]["role"], "tuner");
  EXPECT_EQ(rows[1]["calls"], 2);
  EXPECT_EQ(rows[1]["input_tokens"], 40);
  EXPECT_EQ(db.Steps(run, "t")->at(0).calls[1].model, "openai:small");
}

TEST_F(RunDbTest, AVersionOneDatabaseIsBroughtToVersionTwoAndItsCallsAreTheRunsModels) {
  {  // The tables a version-1 build made, with a run, a step and a call, and no llm_call_costs.
    Db old = *Db::Open(path_);
    ASSERT_TRUE(
        old.Execute(
               "CREATE TABLE run_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);"
               "INSERT INTO run_meta VALUES ('schema_version', '1');"
               "CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, method TEXT NOT NULL, "
               "model TEXT NOT NULL, status TEXT NOT NULL, options TEXT NOT NULL, created_at "
               "INTEGER NOT NULL);"
               "INSERT INTO runs VALUES (1, 'ps', 'openai:m', 'finished', '{}', 0);"
               "CREATE TABLE llm_calls (run_id INTEGER NOT NULL, task TEXT NOT NULL, node "
               "INTEGER NOT NULL, seq INTEGER NOT NULL, role TEXT NOT NULL, messages TEXT NOT "
               "NULL, reply TEXT NOT NULL, error TEXT NOT NULL, usage TEXT NOT NULL, cost_usd "
               "REAL, latency_s REAL NOT NULL, attempts INTEGER NOT NULL, source TEXT NOT NULL, "
               "PRIMARY KEY (run_id, task, node, seq));"
               "INSERT INTO llm_calls VALUES (1, 't', 1, 0, 'proposer', '[]', 'k', '', "
               "'{\"input\": 7}', 0.5, 1.0, 1, 'live');")
            .ok());
  }
  Result<RunDb> db = RunDb::Open(path_);
  ASSERT_TRUE(db.ok()) << db.status().message();
  std::vector<nlohmann::json> rows = *db->CallTotalsByModelRole(1);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["model"], "openai:m");
  EXPECT_EQ(rows[0]["input_tokens"], 7);
  // Calls recorded from now on keep their model; the database says version 2.
  ASSERT_TRUE(db->RecordCallCost(1, "t", 2, {.role = "tuner", .model = "openai:x"}).ok());
  EXPECT_EQ(db->CallTotalsByModelRole(1)->size(), 2u);
  Db raw = *Db::Open(path_);
  Statement version = *raw.Prepare("SELECT value FROM run_meta WHERE name = 'schema_version'");
  ASSERT_TRUE(*version.Step());
  EXPECT_EQ(version.ColumnText(0), "2");
  EXPECT_TRUE(RunDb::Open(path_).ok());  // Opened again: nothing left to bring up.
}

TEST_F(RunDbTest, TotalsOfAbsurdStoredCountsSaturateInsteadOfFailing) {
  RunDb db = *RunDb::Open(path_);
  const int64_t run = *db.CreateRun({.method = "ps", .model = "openai:m"});
  ASSERT_TRUE(db.AddTask(run, {.name = "t", .source = "s", .steps = 5}).ok());
  StepRecord step = Step(1);
  step.calls[0].usage = {{"input", INT64_MAX}, {"output", INT64_MAX}};  // An earlier build's.
  step.calls[1].usage = {{"input", INT64_MAX}, {"output", "many"}};
  ASSERT_TRUE(db.RecordStep(run, "t", step).ok());
  // SQLite's sum() failed here with "integer overflow"; total() saturates.
  Result<nlohmann::json> totals = db.CallTotals(run);
  ASSERT_TRUE(totals.ok()) << totals.status().ToString();
  EXPECT_EQ((*totals)["input_tokens"], INT64_MAX);
  EXPECT_EQ((*totals)["output_tokens"], INT64_MAX);
  EXPECT_EQ((*totals)["calls"], 2);
}

// Opens the database behind RunDb's back and runs `sql` on it, as a damaged file would be.
void Damage(const std::string& path, const std::string& sql) {
  Db raw = *Db::Open(path);
  ASSERT_TRUE(raw.Execute(sql).ok()) << sql;
}

std::string MessageOf(const Status& status) { return status.ok() ? "ok" : status.message(); }

TEST_F(RunDbTest, ADamagedJsonValueIsAnErrorNamingTableRowAndColumn) {
  int64_t run = 0;
  {
    RunDb db = *RunDb::Open(path_);
    run = *db.CreateRun({.method = "ps", .model = "openai:m", .options = {{"steps", 5}}});
    ASSERT_TRUE(db.AddTask(run, {.name = "t", .source = "s", .steps = 5}).ok());
    ASSERT_TRUE(db.RecordStep(run, "t", Step(1)).ok());
    ASSERT_TRUE(db.RecordStep(run, "t", Step(2, 1)).ok());
    ASSERT_TRUE(db.Steps(run, "t").ok());
  }
  Damage(path_, "UPDATE nodes SET result = '{\"verdict\": ' WHERE node = 2");
  RunDb db = *RunDb::Open(path_);
  EXPECT_THAT(MessageOf(db.Steps(run, "t").status()),
              ::testing::StartsWith(
                  "run database: nodes row (run 1, task 't', node 2): column 'result' is not "
                  "valid JSON: [json.exception.parse_error"));
  Damage(path_, "UPDATE nodes SET result = '[]' WHERE node = 2");
  EXPECT_EQ(MessageOf(db.Steps(run, "t").status()),
            "run database: nodes row (run 1, task 't', node 2): column 'result': holds a JSON "
            "array where an object belongs");
  Damage(path_,
         "UPDATE nodes SET result = '{}'; UPDATE llm_calls SET messages = '{' WHERE seq = 1");
  EXPECT_THAT(MessageOf(db.Steps(run, "t").status()),
              ::testing::StartsWith("run database: llm_calls row (run 1, task 't', node 1, call "
                                    "1): column 'messages' is not valid JSON"));
  Damage(path_, "UPDATE runs SET options = 'null'");
  EXPECT_EQ(MessageOf(db.FindRun(run).status()),
            "run database: runs row (run 1): column 'options': holds a JSON null where an "
            "object belongs");
  EXPECT_FALSE(db.Runs().ok());
  EXPECT_FALSE(db.LatestRun().ok());
  Damage(path_, "UPDATE task_files SET file = 'nope'");
  EXPECT_THAT(MessageOf(db.Tasks(run).status()),
              ::testing::StartsWith("run database: task_files row (run 1, task 't'): column "
                                    "'file' is not valid JSON"));
  Damage(path_, "DELETE FROM task_files");  // A run from before task files were kept.
  ASSERT_TRUE(db.Tasks(run).ok());
  EXPECT_TRUE((*db.Tasks(run))[0].file.is_null());
  ASSERT_TRUE(db.RecordBaseline({{"key", "k"}, {"task", "t"}}).ok());
  Damage(path_, "UPDATE baselines SET result = '7'");
  EXPECT_EQ(MessageOf(db.Baselines().status()),
            "run database: baselines row (key 'k'): column 'result': holds a JSON number where "
            "an object belongs");
}

TEST(StoredJsonTest, ExceptionsOfAReaderBecomeAnErrorNamingTheRow) {
  const nlohmann::json result = {{"edit_feedback", 7}};
  Status status = ReadStoredJson(NodesRow(3, "relu", 4), "result", [&] {
    (void)result.value("edit_feedback", "");
    return Status::Ok();
  });
  EXPECT_THAT(MessageOf(status),
              ::testing::StartsWith("run database: nodes row (run 3, task 'relu', node 4): column "
                                    "'result': [json.exception.type_error.302]"));
  EXPECT_EQ(MessageOf(ReadStoredJson(
                "r", "c", []() -> Status { throw std::invalid_argument("unknown kind 'x'"); })),
            "run database: r: column 'c': unknown kind 'x'");
  EXPECT_TRUE(ReadStoredJson("r", "c", [] { return Status::Ok(); }).ok());
}

}  // namespace
}  // namespace adaexplore
