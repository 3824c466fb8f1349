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
  // A candidate's verdict, and its text written to `stream` (stdout) under the status line.
  void OnResult(const EvalResult& result, FILE* stream, const std::string& text);
  // Every candidate is judged: the status line goes, and stays gone (what is printed next, the
  // summary, must not be glued to it).
  void Finish();

  // The status line's text at `now`.
  std::string Status(TimePoint now) const;
  // Its figures, for a JSON progress line: done, total, correct, running (by phase), elapsed_s,
  // eta_s.
  nlohmann::json StatusJson(TimePoint now) const;

 private:
  void Redraw();

  size_t total_;
  TimePoint start_;
  StatusLine status_;
  size_t done_ = 0;
  size_t correct_ = 0;
  std::map<std::string, std::string> running_;  // Job id -> its phase; gone once done.

  std::map<std::string, int> Phases() const;  // Running jobs by phase.
};

}  // namespace adaexplore
