#include "cli/eval_progress.h"

#include <fmt/format.h>

#include "ui/progress_clock.h"

namespace adaexplore {

EvalProgress::EvalProgress(size_t total, TimePoint start, StatusLine::Format format)
    : total_(total), start_(start), status_(stderr, format) {}

EvalProgress::EvalProgress(size_t total, TimePoint start, FILE* out, bool smart)
    : total_(total), start_(start), status_(out, smart) {}

EvalProgress::~EvalProgress() { status_.SetStatus(""); }

void EvalProgress::OnPhase(const std::string& job, const std::string& phase) {
  if (phase == "done") {
    running_.erase(job);
  } else {
    running_[job] = phase;
  }
  Redraw();
}

void EvalProgress::OnResult(const EvalResult& result, FILE* stream, const std::string& text) {
  ++done_;
  correct_ += result.verdict == Verdict::kCorrect;
  status_.SetStatus("");  // Off the terminal while the result is written, then drawn again.
  (void)std::fwrite(text.data(), 1, text.size(), stream);
  (void)std::fflush(stream);
  Redraw();
}

void EvalProgress::Finish() { status_.SetStatus(""); }

std::map<std::string, int> EvalProgress::Phases() const {
  std::map<std::string, int> phases;
  for (const auto& [job, phase] : running_) {
    ++phases[phase];
  }
  return phases;
}

std::string EvalProgress::Status(TimePoint now) const {
  std::string line = fmt::format("eval: {}/{} judged, {} correct", done_, total_, correct_);
  const std::map<std::string, int> phases = Phases();
  if (!phases.empty()) {
    std::string parts;
    for (const auto& [phase, count] : phases) {
      parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", count, phase);
    }
    line += " · running: " + parts;
  }
  return line + " · " + ProgressClock(done_, total_, now - start_);
}

nlohmann::json EvalProgress::StatusJson(TimePoint now) const {
  nlohmann::json fields = {{"command", "eval"},
                           {"done", done_},
                           {"total", total_},
                           {"correct", correct_},
                           {"running", Phases()}};
  fields.update(ProgressClockJson(done_, total_, now - start_));
  return fields;
}

void EvalProgress::Redraw() {
  const TimePoint now = Clock::now();
  status_.SetStatus(Status(now), status_.json() ? StatusJson(now) : nlohmann::json());
}

}  // namespace adaexplore
