#pragma once

// What `eval` shows on a terminal while a batch runs: a status line on stderr with how many
// candidates have a verdict out of how many, what the running jobs are doing (their phases),
// the time so far and an estimate of the time left. Nothing on a pipe or a file (StatusLine);
// with --json, each change as a JSON "progress" line on stderr instead. Results themselves go to
// stdout as they come, as before.

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/clock.h"
#include "eval/verdict.h"
#include "ui/status_line.h"

namespace adaexplore {

class EvalProgress {
 public:
  // `total`: the candidates of the batch. `start`: when the batch began.
  EvalProgress(size_t total, TimePoint start,
               StatusLine::Format format = StatusLine::Format::kText);
  // For tests: a status line on `out`, smart or not.
  EvalProgress(size_t total, TimePoint start, FILE* out, bool smart);
  ~EvalProgress();  // Takes the status line down.
  EvalProgress(const EvalProgress&) = delete;
  EvalProgress& operator=(const EvalProgress&) = delete;

  // A job's phase changed (the pool's on_progress; "done" when its outcome came back).
  void OnPhase(const std::string& job, const std::string& phase);
  // The batch holds FlashInfer-Trace definitions with `workloads` workloads in all, beside
  // `others` candidates without: progress and the estimate are then counted in workloads (each
  // other candidate counting as one).
  void CountWorkloads(size_t workloads, size_t others);
  // Workload `index` of `count` of a definition has its verdict: a line on stderr (on a pipe
  // too: a definition's workloads can take minutes each on the CPU), and the status line.
  void OnWorkload(const EvalResult& part, const std::string& label, size_t index, size_t count);
  // A line for the user on stderr, above the status line (as JSON: `event` with it).
  void Note(const std::string& line, nlohmann::json event) {
    status_.Message(line, std::move(event));
  }
  // A candidate's verdict, and its text written to `stream` (stdout) under the status line.
  void OnResult(const EvalResult& result, FILE* stream, const std::string& text);
  // Every candidate is judged: the status line goes, and stays gone (what is printed next, the
  // summary, must not be glued to it).
  void Finish();

  // The status line's text at `now`.
  std::string Status(TimePoint now) const;
  // Its figures, for a JSON progress line: done, total, correct, running (by phase), elapsed_s,
  // eta_s; with definitions, workloads_done, workloads_total and workloads_failed too.
  nlohmann::json StatusJson(TimePoint now) const;

 private:
  void Redraw();

  size_t total_;
  TimePoint start_;
  StatusLine status_;
  size_t done_ = 0;
  size_t correct_ = 0;
  size_t units_ = 0;  // With definitions: workloads plus other candidates; 0 otherwise.
  size_t units_done_ = 0;
  size_t workloads_failed_ = 0;
  bool only_workloads_ = false;                 // Every candidate is a definition's.
  std::map<std::string, std::string> running_;  // Job id -> its phase; gone once done.

  std::map<std::string, int> Phases() const;  // Running jobs by phase.
};

}  // namespace adaexplore
