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

void EvalProgress::CountWorkloads(size_t workloads, size_t others) {
  units_ = workloads + others;
  only_workloads_ = others == 0;
  Redraw();
}

void EvalProgress::OnWorkload(const EvalResult& part, const std::string& label, size_t index,
                              size_t count) {
  ++units_done_;
  workloads_failed_ += part.verdict != Verdict::kCorrect;
  std::string line =
      fmt::format("{}  [{}] workload {}/{}{}  {}", part.kernel_path, part.task, index + 1, count,
                  label.empty() ? "" : " (" + label + ")", VerdictName(part.verdict));
  if (part.verdict == Verdict::kCorrect && part.speedup) {
    line += fmt::format("  {:.3g}x", *part.speedup);
  } else if (part.verdict != Verdict::kCorrect) {
    line += "  " + part.reason.substr(0, part.reason.find('\n'));
  }
  status_.Message(line, {{"event", "workload"},
                         {"kernel", part.kernel_path},
                         {"task", part.task},
                         {"workload", index + 1},
                         {"workloads", count},
                         {"label", label},
                         {"verdict", VerdictName(part.verdict)},
                         {"speedup", part.speedup ? nlohmann::json(*part.speedup) : nullptr},
                         {"reason", part.reason}});
  Redraw();
}

void EvalProgress::OnResult(const EvalResult& result, FILE* stream, const std::string& text) {
  ++done_;
  if (!result.facts.is_object() || !result.facts.contains("workloads")) {
    ++units_done_;  // A candidate without workloads is one unit.
  }
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
  if (units_ > 0) {
    line += fmt::format(
        " · {} {}/{}{}", only_workloads_ ? "workloads" : "workloads and other candidates",
        units_done_, units_,
        workloads_failed_ > 0 ? fmt::format(" ({} workload(s) failed)", workloads_failed_) : "");
    return line + " · " + ProgressClock(units_done_, units_, now - start_);
  }
  return line + " · " + ProgressClock(done_, total_, now - start_);
}

nlohmann::json EvalProgress::StatusJson(TimePoint now) const {
  nlohmann::json fields = {{"command", "eval"},
                           {"done", done_},
                           {"total", total_},
                           {"correct", correct_},
                           {"running", Phases()}};
  if (units_ > 0) {
    fields["units_done"] = units_done_;
    fields["units_total"] = units_;
    fields["workloads_failed"] = workloads_failed_;
    fields.update(ProgressClockJson(units_done_, units_, now - start_));
  } else {
    fields.update(ProgressClockJson(done_, total_, now - start_));
  }
  return fields;
}

void EvalProgress::Redraw() {
  const TimePoint now = Clock::now();
  status_.SetStatus(Status(now), status_.json() ? StatusJson(now) : nlohmann::json());
}

}  // namespace adaexplore
