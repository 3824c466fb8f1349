#pragma once

// What a search run shows on the terminal while it goes: a line when it starts (the run, its
// tasks, the model, the device, and whether the LLM is replayed or the kernels run in the CPU
// interpreter), a message per finished step and a status line with the steps done of all, the
// time so far and about how long is left, each task's progress and the cost so far. Used by `run`,
// `bench` and `adapt` for every run of their session. With their --json, the same as JSON lines
// on stderr (StatusLine): events "run_start", "cpu_run", "step", "llm_failure", "llm_retry" and
// "progress".
// The log (core/json_log.h) and the command's notices and failure are JSON lines then too.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "llm/client.h"
#include "search/session.h"
#include "ui/status_line.h"
#include "workers/protocol.h"

namespace adaexplore {

class SearchProgress {
 public:
  // `llm` is the client the run's calls go through (its ledger gives the cost); `worker` the
  // device the kernels are evaluated on. Both must outlive this object.
  SearchProgress(const LlmClient& llm, const WorkerHello& worker,
                 StatusLine::Format format = StatusLine::Format::kText);
  ~SearchProgress();  // Takes the status line down.
  SearchProgress(const SearchProgress&) = delete;
  SearchProgress& operator=(const SearchProgress&) = delete;

  // Callbacks that draw on this object, for SearchSession::Start and Resume.
  RunObserver Observer();

 private:
  void OnStart(int64_t run_id, const RunSpec& spec, size_t tasks);
  void OnProgress(const TaskProgress& progress);
  void OnLlmFailure(const LlmFailure& failure);
  void OnLlmRetry(const LlmRetry& retry);
  void Redraw();
  std::string Cost() const;
  nlohmann::json CostJson() const;

  const LlmClient& llm_;
  const WorkerHello& worker_;
  StatusLine status_;
  std::map<std::string, TaskProgress> latest_;  // By task: its last finished step.
  int llm_failures_ = 0;                        // Failed LLM calls of this run so far.
  TimePoint start_;                             // When the run (or its resumption) began.
  size_t total_steps_ = 0;                      // Steps of every task together.
  std::map<std::string, int> before_;           // By task: steps done before this session.
  int llm_failures_in_a_row_ = 0;
  int llm_retries_ = 0;                       // Retries of failed LLM calls this session.
  std::map<std::string, LlmRetry> retrying_;  // By task: its call waiting to try again.
  int64_t run_id_ = 0;
};

// Starts a run of `spec` over `tasks` in `session`, or resumes run `resume` when set (its stored
// spec and tasks, then), showing its progress on stderr, and why it stopped early if it did.
Result<RunOutcome> RunWithProgress(SearchSession& session, LlmClient& llm,
                                   std::optional<int64_t> resume, const RunSpec& spec,
                                   const std::vector<SourceFile>& tasks,
                                   StatusLine::Format format = StatusLine::Format::kText);

}  // namespace adaexplore
