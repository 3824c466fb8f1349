#include "cli/search_progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "eval/verdict.h"
#include "llm/provider.h"
#include "ui/progress_clock.h"

namespace adaexplore {
namespace {

std::string Speedup(const std::optional<double>& speedup, const char* none) {
  return speedup ? fmt::format("{:.3g}x", *speedup) : std::string(none);
}

// A verdict's reason on one line of a terminal: its first line, at most 200 characters.
std::string OneLine(const std::string& reason) {
  constexpr size_t kWidth = 200;
  std::string line = reason.substr(0, reason.find('\n'));
  if (line.size() > kWidth) {
    size_t cut = kWidth - 3;
    while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0U) == 0x80U) {
      --cut;  // Not inside a UTF-8 sequence.
    }
    line = line.substr(0, cut) + "...";
  }
  return line;
}

}  // namespace

SearchProgress::SearchProgress(const LlmClient& llm, const WorkerHello& worker,
                               StatusLine::Format format)
    : llm_(llm), worker_(worker), status_(stderr, format) {}

SearchProgress::~SearchProgress() { status_.SetStatus(""); }

RunObserver SearchProgress::Observer() {
  return RunObserver{.on_start = [this](int64_t run_id, const RunSpec& spec,
                                        size_t tasks) { OnStart(run_id, spec, tasks); },
                     .on_progress = [this](const TaskProgress& progress) { OnProgress(progress); },
                     .on_llm_failure = [this](const LlmFailure& f) { OnLlmFailure(f); },
                     .on_llm_retry = [this](const LlmRetry& r) { OnLlmRetry(r); }};
}

void SearchProgress::OnStart(int64_t run_id, const RunSpec& spec, size_t tasks) {
  latest_.clear();
  before_.clear();
  llm_failures_ = llm_failures_in_a_row_ = llm_retries_ = 0;
  retrying_.clear();
  start_ = Clock::now();
  run_id_ = run_id;
  total_steps_ = tasks * static_cast<size_t>(std::max(spec.steps, 0));
  // As RunSummaryJson decides it: by the parsed provider, not the spelling of the name.
  const Result<ModelSpec> model = ParseModelSpec(spec.model);
  const bool replayed = model.ok() && model->replayed();
  status_.Message(
      fmt::format("run {}: {} on {} task(s), {} steps each, {}, evaluated on {}{}", run_id,
                  SearchMethodName(spec.method), tasks, spec.steps, spec.model, worker_.device_name,
                  replayed ? " (LLM replies replayed from a recording: no LLM is called)" : ""),
      {{"event", "run_start"},
       {"run", run_id},
       {"method", SearchMethodName(spec.method)},
       {"tasks", tasks},
       {"steps", spec.steps},
       {"model", spec.model},
       {"device", worker_.device_name},
       {"llm_replayed", replayed}});
  if (worker_.device_kind == DeviceKind::kCpu) {
    status_.Message(
        "no GPU: kernels run in Triton's interpreter on the CPU, so correctness is real but "
        "speedups are not meaningful",
        {{"event", "cpu_run"}, {"run", run_id}});
  }
}

void SearchProgress::OnProgress(const TaskProgress& p) {
  const std::string cost = Cost();
  const bool correct = p.verdict == VerdictName(Verdict::kCorrect);
  status_.Message(
      fmt::format("[{}] step {}/{} {} -> {}{} (best {}) {}{}", p.task, p.steps_done, p.steps,
                  p.move, p.verdict, p.speedup ? fmt::format(" {:.3g}x", *p.speedup) : "",
                  Speedup(p.best_speedup, "none"), cost,
                  correct || p.reason.empty() ? "" : "\n    " + OneLine(p.reason)),
      {{"event", "step"},
       {"run", run_id_},
       {"task", p.task},
       {"step", p.steps_done},
       {"steps", p.steps},
       {"node", p.node},
       {"move", p.move},
       {"verdict", p.verdict},
       {"reason", p.reason},
       {"speedup", p.speedup ? nlohmann::json(*p.speedup) : nlohmann::json(nullptr)},
       {"best_speedup", p.best_speedup ? nlohmann::json(*p.best_speedup) : nlohmann::json(nullptr)},
       {"cost", CostJson()}});
  latest_[p.task] = p;
  retrying_.erase(p.task);  // Its call was answered (or failed for good).
  before_.emplace(p.task, std::max(p.steps_done - 1, 0));  // A resumed task's earlier steps.
  llm_failures_in_a_row_ = p.llm_failures_in_a_row;
  Redraw();
}

void SearchProgress::OnLlmRetry(const LlmRetry& r) {
  ++llm_retries_;
  retrying_[r.task] = r;
  status_.Message(fmt::format("[{}] LLM call retrying {}/{} in {:.0f} s: {}", r.task, r.attempt + 1,
                              r.max_attempts, r.wait_s, OneLine(r.cause)),
                  {{"event", "llm_retry"},
                   {"run", run_id_},
                   {"task", r.task},
                   {"model", r.model},
                   {"attempt", r.attempt + 1},
                   {"max_attempts", r.max_attempts},
                   {"wait_s", r.wait_s},
                   {"cause", r.cause}});
  Redraw();
}

void SearchProgress::OnLlmFailure(const LlmFailure& f) {
  ++llm_failures_;
  retrying_.erase(f.task);
  llm_failures_in_a_row_ = f.in_a_row;
  status_.Message(fmt::format("[{}] LLM call failed ({} in a row{}): {}", f.task, f.in_a_row,
                              f.limit > 0 ? fmt::format(", the run stops at {}", f.limit) : "",
                              f.message.substr(0, 300)),
                  {{"event", "llm_failure"},
                   {"run", run_id_},
                   {"task", f.task},
                   {"in_a_row", f.in_a_row},
                   {"limit", f.limit},
                   {"error", f.message}});
  Redraw();
}

void SearchProgress::Redraw() {
  size_t done = 0;
  size_t before = 0;
  for (const auto& [name, progress] : latest_) {
    done += static_cast<size_t>(std::max(progress.steps_done, 0));
    before += static_cast<size_t>(before_[name]);
  }
  // The estimate is over this session's steps: a resumed run's earlier ones took no time here.
  const size_t left_total = total_steps_ > before ? total_steps_ - before : 0;
  const size_t done_here = done - std::min(done, before);
  const Duration elapsed = Clock::now() - start_;
  std::string line = fmt::format("{}/{} steps · {} | {}", done, total_steps_,
                                 ProgressClock(done_here, left_total, elapsed), Cost());
  nlohmann::json fields = {{"command", "run"},
                           {"run", run_id_},
                           {"done", done},
                           {"total", total_steps_},
                           {"cost", CostJson()},
                           {"llm_failures", llm_failures_},
                           {"llm_failures_in_a_row", llm_failures_in_a_row_},
                           {"tasks", nlohmann::json::object()}};
  fields.update(ProgressClockJson(done_here, left_total, elapsed));
  if (llm_failures_ > 0) {
    line += fmt::format(" | LLM failures {} ({} in a row)", llm_failures_, llm_failures_in_a_row_);
  }
  fields["llm_retries"] = llm_retries_;
  fields["llm_retrying"] = nlohmann::json::array();
  for (const auto& [task, r] : retrying_) {
    line += fmt::format(" | LLM retrying {}/{}: {}", r.attempt + 1, r.max_attempts, r.cause);
    fields["llm_retrying"].push_back({{"task", task},
                                      {"attempt", r.attempt + 1},
                                      {"max_attempts", r.max_attempts},
                                      {"wait_s", r.wait_s},
                                      {"cause", r.cause}});
  }
  const std::string correct(VerdictName(Verdict::kCorrect));
  for (const auto& [name, progress] : latest_) {
    const auto ok = progress.verdicts.find(correct);
    const int correct_steps = ok == progress.verdicts.end() ? 0 : ok->second;
    line += fmt::format(" | {} {}/{} best {} ok {}", name, progress.steps_done, progress.steps,
                        Speedup(progress.best_speedup, "-"), correct_steps);
    fields["tasks"][name] = {
        {"done", progress.steps_done},
        {"steps", progress.steps},
        {"correct", correct_steps},
        {"best_speedup",
         progress.best_speedup ? nlohmann::json(*progress.best_speedup) : nlohmann::json(nullptr)}};
  }
  status_.SetStatus(line, std::move(fields));
}

std::string SearchProgress::Cost() const {
  const LedgerTotals totals = llm_.ledger().Total();
  // Calls without a price make the total a lower bound; with none priced it is unknown.
  if (totals.unpriced_calls == 0) {
    return fmt::format("${:.4f}", totals.cost_usd);
  }
  if (totals.unpriced_calls < totals.calls) {
    return fmt::format(">= ${:.4f} ({} unpriced calls)", totals.cost_usd, totals.unpriced_calls);
  }
  return "cost unknown (no price set)";
}

nlohmann::json SearchProgress::CostJson() const {
  const LedgerTotals totals = llm_.ledger().Total();
  return {{"usd", totals.unpriced_calls < totals.calls || totals.calls == 0
                      ? nlohmann::json(totals.cost_usd)
                      : nlohmann::json(nullptr)},
          {"calls", totals.calls},
          {"unpriced_calls", totals.unpriced_calls}};
}

Result<RunOutcome> RunWithProgress(SearchSession& session, LlmClient& llm,
                                   std::optional<int64_t> resume, const RunSpec& spec,
                                   const std::vector<SourceFile>& tasks,
                                   StatusLine::Format format) {
  Result<RunOutcome> outcome = [&] {
    SearchProgress progress(llm, session.evaluator().workers().front(), format);
    return resume ? session.Resume(*resume, llm, progress.Observer())
                  : session.Start(spec, tasks, llm, progress.Observer());
  }();  // The status line is down before anything else is printed.
  if (outcome.ok()) {
    if (const std::optional<RunNotice> stopped = StoppedEarlyNotice(*outcome)) {
      StatusLine(stderr, format).Message(stopped->text, stopped->fields);
    }
  }
  return outcome;
}

}  // namespace adaexplore
