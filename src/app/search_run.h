#pragma once

// `adaexplore run`'s use case: a new search run, or a stored one resumed, from its run database
// to each task's best kernel on disk (<out_dir>/<task>.py and summary.json). One process at a
// time runs from a database. Nothing here prints: the caller shows what happens through
// SearchRunEvents, and takes its exit from the outcome.
//
//   const InterruptGuard guard;
//   ASSIGN_OR_RETURN(SearchRunOutcome outcome,
//                    RunSearchRun(config, request, events, logger, guard));
//   return outcome.ExitCode();

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/log.h"
#include "core/result.h"
#include "llm/client.h"
#include "search/runner.h"
#include "search/session.h"
#include "store/run_db.h"
#include "sys/signals.h"
#include "task/source_file.h"
#include "workers/protocol.h"

namespace adaexplore {

struct SearchRunRequest {
  std::string db_path;
  std::string out_dir;      // Where each task's best kernel and summary.json go.
  std::string record_path;  // Every LLM exchange appended here too; empty: as configured.
  // A new run: its spec (the memory's rules and the seed kernels in it) over `tasks`.
  RunSpec spec;
  std::vector<SourceFile> tasks;
  // Or a stored run resumed: `run_id`, or the database's latest. It keeps its spec and tasks;
  // `steps` above its own extends it (below is an error).
  bool resume = false;
  std::optional<int64_t> run_id;
  std::optional<int> steps;
  // With `resume`: the run's stored evaluation settings into the configuration, with the
  // caller's own over them (a run is judged as it started).
  std::function<Status(const RunInfo&, Config&)> restore_settings;
};

// What the caller is told; any may be empty.
struct SearchRunEvents {
  // Something the user should know (a run extended or finished already, an endpoint, a run
  // stopped early): the text, and the JSON line's fields ("event" and its own).
  std::function<void(const std::string& text, const nlohmann::json& fields)> notice;
  // The run starts on these: what observes its steps (kept alive by the caller until `ended`).
  std::function<RunObserver(const LlmClient& llm, const WorkerHello& worker)> watch;
  std::function<void()> ended;  // The run's steps are over (before any notice of how).
};

struct SearchRunOutcome {
  RunOutcome run;
  nlohmann::json summary;  // What summary.json holds (RunSummaryJson).
  LedgerTotals calls;      // This session's LLM calls.

  // Every LLM call of this session failed: the endpoint, the key or the model is wrong.
  bool AllLlmCallsFailed() const;
  // 130 when interrupted (the summary and best kernels are written), 3 when a task has steps left
  // (a spent budget), 1 when every LLM call failed, else 0.
  int ExitCode() const;
};

// Runs or resumes as above; `guard`, made before the call as Evaluate's is, is why the LLM
// client's I/O thread started here inherits the blocked signals, so that an interrupt wakes the
// run's poll at once. Errors: a database in use by another process, no run to resume, fewer
// steps than the run has, a CUDA run on the CPU, an LLM client or workers that do not start.
Result<SearchRunOutcome> RunSearchRun(Config& config, SearchRunRequest request,
                                      const SearchRunEvents& events, const Logger& logger,
                                      const InterruptGuard& guard);

// An LLM client for `model` under `config`, with its exchanges also recorded to `record_path`
// when it is not empty; a missing key or an unreadable recording fails here, before any worker
// starts.
Result<std::unique_ptr<LlmClient>> StartLlmClient(const Config& config,
                                                  const std::string& record_path,
                                                  const std::string& model, const Logger& logger);

}  // namespace adaexplore
