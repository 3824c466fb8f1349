#pragma once

// RunDb: the run database. Everything a search did, in SQLite, so a run can be inspected,
// reported on and resumed: runs (method, model, options), their tasks (source and step budget),
// every node (parent, move, kernel, verdict, figures, the context it was shown) and every LLM
// call of every node (role, prompt, reply, tokens, cost), and the baseline timings of its tasks.
//
// Durability: a step is written in one transaction when it is complete: its node and its LLM
// calls together. A run killed at any moment (kill -9 included) therefore holds every completed
// step whole and nothing of the step in flight, which resume simply does again (its LLM calls
// come back from the response cache when they had finished). What the step in flight has
// already paid for is not lost with it: each answered call's tokens and dollars are written to
// llm_call_costs as soon as the reply arrives (RecordCallCost), and move to llm_calls in the
// transaction that records the step. CallTotals sums both, so a killed run's spending counts
// toward the budget of its resume. WAL mode; one writer, any number of readers (reports). Not
// thread-safe: owned by the run's poll loop.
//
// Reading: every stored JSON value is checked as it is read (store/stored_json.h); a bad one is
// an error naming its table, row and column, never an exception.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "store/db.h"
#include "store/work_status.h"

namespace adaexplore {

struct RunInfo {
  int64_t id = 0;
  std::string method;  // "adaexplore", "ps", "ir".
  std::string model;   // "provider:model".
  WorkStatus status = WorkStatus::kRunning;
  nlohmann::json options = nlohmann::json::object();  // Everything that configures the run.
  int64_t created_at = 0;
};

struct TaskInfo {
  std::string name;
  std::string source;
  int steps = 0;  // The step budget.
  WorkStatus status = WorkStatus::kRunning;
  // What the task is beside its source (task/task_file.h's TaskFileJson): its kind, path,
  // workloads. Null for a run recorded before it was kept (a KernelBench task).
  nlohmann::json file;
};

struct CallRecord {
  std::string role;
  // "provider:model" that was called; empty for a call stored before it was kept (schema
  // version 1): its run's model.
  std::string model;
  nlohmann::json messages = nlohmann::json::array();
  std::string reply;
  std::string error;  // Empty on success.
  nlohmann::json usage = nlohmann::json::object();
  std::optional<double> cost_usd;
  double latency_s = 0;
  int attempts = 0;
  std::string source;  // "live", "cache", "replay".
  // Its row in llm_call_costs (RecordCallCost), removed when the step is recorded with the call.
  // Not stored; unset for a call read back.
  std::optional<int64_t> cost_id;
};

struct StepRecord {
  int node = 0;  // 1-based; equals the step number.
  int parent = 0;
  std::string move;  // "large_step", "small_step".
  std::vector<int> context;
  std::string kernel;  // Empty when the reply held none.
  std::string verdict;
  std::string reason;
  bool compiled = false;
  bool correct = false;
  std::optional<double> speedup;
  nlohmann::json result = nlohmann::json::object();  // The evaluation's full JSON.
  std::vector<CallRecord> calls;
  int64_t created_at = 0;  // Unix seconds; set when recorded (0: now), read back by Steps.
};

class RunDb {
 public:
  static constexpr int kSchemaVersion = 2;

  static Result<RunDb> Open(const std::string& path);

  Result<int64_t> CreateRun(const RunInfo& run);
  Result<std::optional<RunInfo>> FindRun(int64_t id);
  Result<std::optional<RunInfo>> LatestRun();
  Result<std::vector<RunInfo>> Runs();  // Every run, oldest first.
  Status SetRunStatus(int64_t run, WorkStatus status);
  // Raises a run's step budget per task to `steps` (its stored options and every task's), and
  // marks it and its tasks running again: a resume then continues each task's search.
  Status ExtendRun(int64_t run, int steps);

  // Adds `task` to `run`; adding one that is already there (a resume) checks that its source is
  // unchanged, so a resumed run never mixes two versions of a task.
  Status AddTask(int64_t run, const TaskInfo& task);
  Result<std::vector<TaskInfo>> Tasks(int64_t run);
  Status SetTaskStatus(int64_t run, const std::string& task, WorkStatus status);

  // Writes a complete step (node and calls) in one transaction. Recording a node twice is an
  // error: a resumed run must continue after the last step, never redo one.
  Status RecordStep(int64_t run, const std::string& task, const StepRecord& step);
  // Writes the cost of one answered LLM call (its role, source, error, usage and cost_usd) for
  // node `node` of `task` at once, before the step it belongs to is complete, so that a kill
  // loses none of what was spent. Returns the row's id: set it as the call's cost_id, and
  // RecordStep replaces the row with the call itself.
  Result<int64_t> RecordCallCost(int64_t run, const std::string& task, int node,
                                 const CallRecord& call);
  // Token and cost totals of a run's LLM calls, over every session that worked on it: those of
  // recorded steps and those whose step was never recorded (a kill, an interrupt):
  // {"calls", "input_tokens", "output_tokens", "cached_input_tokens", "cache_write_tokens",
  //  "cost_usd", "unpriced_calls"}. Sums saturate; a count that is not an integer counts as 0.
  Result<nlohmann::json> CallTotals(int64_t run);
  // CallTotals per model and role, each with its "model" and "role", ordered by them. A call
  // stored before calls kept their model (schema version 1) counts as its run's model's.
  Result<std::vector<nlohmann::json>> CallTotalsByModelRole(int64_t run);

  // Baseline timings of tasks (eval/baseline.h's JSON, which holds key, task, task_sha256 and
  // profile), one per key: recording a key again replaces it. Read back oldest first.
  Status RecordBaseline(const nlohmann::json& baseline);
  Result<std::vector<nlohmann::json>> Baselines();

  // Every step of a task, in node order.
  Result<std::vector<StepRecord>> Steps(int64_t run, const std::string& task);

 private:
  explicit RunDb(Db db) : db_(std::move(db)) {}
  Db db_;
};

}  // namespace adaexplore
