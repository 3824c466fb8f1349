#include "suite/suite_bench.h"

#include <fmt/format.h>

#include <filesystem>

#include "store/run_db.h"

namespace adaexplore {
namespace {

// Times every task's own Model once on the session's workers, answered from the result cache
// where it can, and records the figures in the run database for the report. A task that cannot
// be timed is reported and left out.
Status MeasureBaselines(SearchSession& session, const SuiteBenchOptions& options,
                        const SuiteBenchObserver& observer) {
  const bool with_compile = options.baseline == BaselineMode::kCompile;
  Evaluator& evaluator = session.evaluator();
  if (observer.on_baselines_start) {
    observer.on_baselines_start(options.tasks.size(), with_compile,
                                evaluator.workers().front().device_name);
  }
  ASSIGN_OR_RETURN(
      std::vector<Baseline> baselines,
      evaluator.Baselines(options.tasks, with_compile,
                          options.refresh_baselines ? CacheUse::kRefresh : CacheUse::kRead,
                          options.guard, observer.on_baselines_progress));
  size_t cached = 0, failed = 0, compile_failed = 0;
  for (const Baseline& b : baselines) {
    cached += b.cached ? 1 : 0;
    compile_failed += b.eager && with_compile && !b.compiled ? 1 : 0;
    if (!b.eager || (with_compile && !b.compiled)) {
      if (observer.on_baseline_missing) {
        observer.on_baseline_missing(b);
      }
    }
    if (!b.eager) {
      ++failed;
      continue;
    }
    RETURN_IF_ERROR(session.db().RecordBaseline(ToJson(b)));
  }
  if (observer.on_baselines_done) {
    observer.on_baselines_done(baselines.size() - cached - failed, cached, failed, compile_failed);
  }
  return Status::Ok();
}

// The run of this bench and method from an earlier invocation, if there is one.
Result<std::optional<RunInfo>> PreviousRun(RunDb& db, const std::string& label) {
  ASSIGN_OR_RETURN(std::vector<RunInfo> runs, db.Runs());
  std::optional<RunInfo> previous;
  for (const RunInfo& info : runs) {
    // Compared as JSON: a stored label that is not a string is another bench's, not an error.
    if (info.options.value("label", nlohmann::json()) == label) {
      previous = info;
    }
  }
  return previous;
}

}  // namespace

std::string BenchRunLabel(const SuiteBenchOptions& options, const RunSpec& spec) {
  return fmt::format("bench {} | {} | {} | {} steps | {} tasks | settings {}",
                     std::filesystem::absolute(options.dir).string(), SearchMethodName(spec.method),
                     spec.model, spec.steps, options.tasks.size(), options.identity);
}

Result<SuiteBenchOutcome> RunSuiteBench(SearchSession& session, const SuiteBenchOptions& options,
                                        const SuiteBenchObserver& observer) {
  if (options.baseline != BaselineMode::kNone) {
    RETURN_IF_ERROR(MeasureBaselines(session, options, observer));
  }
  SuiteBenchOutcome outcome;
  for (size_t index = 0; index < options.methods.size(); ++index) {
    RunSpec spec = options.base;
    spec.method = options.methods[index];
    spec.label = BenchRunLabel(options, spec);
    const std::string method(SearchMethodName(spec.method));
    ASSIGN_OR_RETURN(std::optional<RunInfo> previous, PreviousRun(session.db(), spec.label));
    BenchMethod event{.index = index + 1,
                      .count = options.methods.size(),
                      .method = method,
                      .status = !previous ? BenchMethod::Status::kNew
                                : previous->status == WorkStatus::kFinished
                                    ? BenchMethod::Status::kFinished
                                    : BenchMethod::Status::kResumed,
                      .run = previous ? previous->id : 0};
    if (observer.on_method) {
      observer.on_method(event);
    }
    if (event.status == BenchMethod::Status::kFinished) {  // Left alone.
      outcome.runs.push_back(previous->id);
      continue;
    }
    ASSIGN_OR_RETURN(std::unique_ptr<LlmClient> llm,
                     LlmClient::Create(options.llm, options.logger));
    ASSIGN_OR_RETURN(const ModelSpec model, ParseModelSpec(spec.model));
    RETURN_IF_ERROR(llm->Prepare(model));
    const std::optional<int64_t> resume =
        previous ? std::optional<int64_t>(previous->id) : std::nullopt;
    ASSIGN_OR_RETURN(const RunOutcome run,
                     observer.run ? observer.run(session, *llm, resume, spec, options.tasks)
                     : resume     ? session.Resume(*resume, *llm, RunObserver{})
                                  : session.Start(spec, options.tasks, *llm, RunObserver{}));
    ASSIGN_OR_RETURN(const nlohmann::json summary,
                     RunSummaryJson(run, session.db(), *llm, options.db_path));
    RETURN_IF_ERROR(WriteRunOutput(run, summary, options.out_dir + "/" + method));
    outcome.runs.push_back(run.run_id);
    if (run.stopped) {  // Stopped (interrupt, budget): report what there is, then stop.
      outcome.stopped = true;
      break;
    }
  }
  return outcome;
}

}  // namespace adaexplore
