#pragma once

// SearchSession: the search as a library. A session holds what outlives one run: the run
// database, the evaluation workers (started once, with their scratch folder) and the profile they
// judge by. It runs one search run at a time over it, new (Start) or resumed (Resume), so
// `adaexplore run` is one run in a session, `bench` one run per method and `adapt` one run per
// wave, the workers started once for all of them.
//
//   SearchSession session(options, std::move(db), std::move(evaluator), std::move(scratch));
//   ASSIGN_OR_RETURN(RunOutcome outcome, session.Start(spec, tasks, *llm, observer));
//
// The LLM client is the caller's and is passed to each run: its ledger holds the budget, so a
// caller that wants one budget over several runs (adapt) passes the same client, one that wants
// a budget per run (bench) a fresh one. A resumed run counts its earlier sessions' spending
// toward the client's budget.
//
// Not thread-safe: one thread calls it, and each run blocks that thread until it ends. After a
// run that was interrupted the session takes no further runs (its evaluations in flight were
// dropped unanswered).

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/log.h"
#include "core/result.h"
#include "eval/evaluator.h"
#include "eval/profile.h"
#include "llm/client.h"
#include "search/run_spec.h"
#include "search/runner.h"
#include "store/run_db.h"
#include "sys/fs.h"
#include "sys/signals.h"
#include "task/source_file.h"

namespace adaexplore {

struct SessionOptions {
  // The profile the session's evaluator judges by: stored with each new run and stated in the
  // prompts. A resumed run must be judged by its own (cli: RestoreRunProfile) before the
  // evaluator starts.
  EvalProfile profile;
  std::string prompts_dir;  // The prompt templates (prompts/ or the user's edited copies).
  std::string db_path;      // For messages only: where a stopped run can be resumed from.
  const InterruptGuard* guard = nullptr;
  Logger logger = NullLogger();
};

struct RunOutcome {
  int64_t run_id = 0;
  RunSpec spec;
  std::vector<TaskSummary> tasks;
  std::optional<std::string> stop_reason;  // A spent budget, an interrupt.
  // Some task has steps left (stop_reason, or a task that stopped): `--resume` continues it.
  bool stopped = false;
  bool interrupted = false;  // Stopped by a signal (Ctrl-C, SIGTERM).
};

// What every front end says of a run that stopped before its steps were spent: "run stopped
// early: <reason>" and its event's fields; nothing when it did not stop early.
struct RunNotice {
  std::string text;
  nlohmann::json fields;
};
std::optional<RunNotice> StoppedEarlyNotice(const RunOutcome& outcome);

class SearchSession {
 public:
  SearchSession(SessionOptions options, RunDb db, std::unique_ptr<Evaluator> evaluator,
                TempDir scratch);
  ~SearchSession();
  SearchSession(const SearchSession&) = delete;
  SearchSession& operator=(const SearchSession&) = delete;

  // Stores a new run of `spec` over `tasks` and runs it to its end. The run's status in the
  // database is finished or stopped when it returns; on an error (a refused key, a replay miss,
  // the database) it is stopped and the error says how to continue.
  Result<RunOutcome> Start(const RunSpec& spec, const std::vector<SourceFile>& tasks,
                           LlmClient& llm, const RunObserver& observer);

  // Continues run `run_id` with its stored spec and tasks, as Start.
  Result<RunOutcome> Resume(int64_t run_id, LlmClient& llm, const RunObserver& observer);

  RunDb& db() { return db_; }
  Evaluator& evaluator() { return *evaluator_; }
  const EvalProfile& profile() const { return options_.profile; }

 private:
  // What a run needs before it is stored or marked running: its model ready in the client (a
  // refused key, a missing recording fail here) and its prompts.
  struct Ready {
    ModelSpec model;
    std::map<LlmRole, ModelSpec> role_models;  // spec.roles, parsed.
    PromptSet prompts;
  };
  Result<Ready> Prepare(const RunSpec& spec, LlmClient& llm) const;
  Result<RunOutcome> Execute(const RunInfo& run, const RunSpec& spec,
                             const std::vector<SourceFile>& tasks, const Ready& ready,
                             LlmClient& llm, const RunObserver& observer);

  SessionOptions options_;
  RunDb db_;
  // The workers' scratch folder outlives the workers: declared first, destroyed last.
  TempDir scratch_;
  std::unique_ptr<Evaluator> evaluator_;
  bool interrupted_ = false;
};

// The outcome as the summary JSON that `run --json` prints and summary.json holds: the run, its
// tasks with their best kernels' verdicts, and `cost` (this client's ledger) beside `run_cost`
// (every session of the run).
Result<nlohmann::json> RunSummaryJson(const RunOutcome& outcome, RunDb& db, const LlmClient& llm,
                                      const std::string& db_path);

// Writes each task's best kernel as `out_dir`/<task>.py (a FlashInfer-Trace definition's as
// <task>.json, a Solution) and `summary` as summary.json.
Status WriteRunOutput(const RunOutcome& outcome, const nlohmann::json& summary,
                      const std::string& out_dir);

}  // namespace adaexplore
