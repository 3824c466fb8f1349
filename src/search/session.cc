#include "search/session.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/hash.h"
#include "core/json_text.h"
#include "core/saturating.h"
#include "llm/provider.h"
#include "store/stored_json.h"
#include "sys/fs.h"
#include "task/task_file.h"
#include "task/task_file_name.h"

namespace adaexplore {
namespace {

nlohmann::json TasksJson(const std::vector<TaskSummary>& summaries) {
  nlohmann::json tasks = nlohmann::json::array();
  for (const TaskSummary& s : summaries) {
    nlohmann::json best = {{"node", s.best_node ? nlohmann::json(*s.best_node) : nullptr},
                           {"verdict", s.best_verdict},
                           {"speedup", s.best_speedup ? nlohmann::json(*s.best_speedup) : nullptr}};
    tasks.push_back({{"task", s.task},
                     {"steps", s.steps},
                     {"status", WorkStatusName(s.status)},
                     {"best", best},
                     {"verdicts", s.verdicts}});
  }
  return tasks;
}

}  // namespace

SearchSession::SearchSession(SessionOptions options, RunDb db, std::unique_ptr<Evaluator> evaluator,
                             TempDir scratch)
    : options_(std::move(options)),
      db_(std::move(db)),
      scratch_(std::move(scratch)),
      evaluator_(std::move(evaluator)) {
  CHECK(evaluator_ != nullptr);  // A session evaluates; the caller started the workers.
}

SearchSession::~SearchSession() = default;

Result<RunOutcome> SearchSession::Start(const RunSpec& spec, const std::vector<SourceFile>& tasks,
                                        LlmClient& llm, const RunObserver& observer) {
  if (tasks.empty()) {
    return InvalidArgument("a run needs at least one task");
  }
  RunInfo run = NewRunInfo(spec, options_.profile);
  // Where its kernels are judged, for every report of it: the device and the software.
  const WorkerHello& worker = evaluator_->workers().front();
  run.options["environment"] = {
      {"device", worker.device_name}, {"device_kind", EnumName(worker.device_kind)},
      {"torch", worker.torch},        {"triton", worker.triton},
      {"python", worker.python},      {"profile", options_.profile.name}};
  // Checked before the run is stored: a spec that cannot be read back could never be resumed.
  RETURN_IF_ERROR(RunSpecOf(run).status());
  ASSIGN_OR_RETURN(const Ready ready, Prepare(spec, llm));
  ASSIGN_OR_RETURN(run.id, db_.CreateRun(run));
  return Execute(run, spec, tasks, ready, llm, observer);
}

Result<RunOutcome> SearchSession::Resume(int64_t run_id, LlmClient& llm,
                                         const RunObserver& observer) {
  ASSIGN_OR_RETURN(std::optional<RunInfo> run, db_.FindRun(run_id));
  if (!run) {
    return NotFound(fmt::format("no run {} in {}", run_id, options_.db_path));
  }
  ASSIGN_OR_RETURN(RunSpec spec, RunSpecOf(*run));
  ASSIGN_OR_RETURN(const Ready ready, Prepare(spec, llm));
  ASSIGN_OR_RETURN(std::vector<TaskInfo> stored, db_.Tasks(run->id));
  std::vector<SourceFile> tasks;
  for (const TaskInfo& t : stored) {
    RETURN_IF_ERROR(ReadStoredJson(TaskFilesRow(run->id, t.name), "file", [&] {
      tasks.push_back(TaskFromStored(t.name, t.source, t.file));
      return Status::Ok();
    }));
  }
  // The budget covers the whole run: its earlier sessions have spent some of it already.
  ASSIGN_OR_RETURN(const nlohmann::json before, db_.CallTotals(run->id));
  const bool priced = before.contains("cost_usd") && before["cost_usd"].is_number();
  llm.ledger().AddSpentElsewhere(priced ? before["cost_usd"].get<double>() : 0.0,
                                 SaturatingAdd(before.value("input_tokens", int64_t{0}),
                                               before.value("output_tokens", int64_t{0})));
  RETURN_IF_ERROR(db_.SetRunStatus(run->id, WorkStatus::kRunning));
  return Execute(*run, spec, tasks, ready, llm, observer);
}

Result<SearchSession::Ready> SearchSession::Prepare(const RunSpec& spec, LlmClient& llm) const {
  if (interrupted_) {
    return Cancelled("the session was interrupted; it starts no further run");
  }
  ASSIGN_OR_RETURN(ModelSpec model, ParseModelSpec(spec.model));
  RETURN_IF_ERROR(llm.Prepare(model));
  ASSIGN_OR_RETURN(auto role_models, RoleModelSpecs(spec));
  for (const auto& [role, own] : role_models) {
    RETURN_IF_ERROR(llm.Prepare(own).WithContext(fmt::format("the {} model", LlmRoleName(role))));
  }
  ASSIGN_OR_RETURN(PromptSet prompts,
                   PromptSet::Load(options_.prompts_dir, spec.language, options_.profile));
  return Ready{.model = std::move(model),
               .role_models = std::move(role_models),
               .prompts = std::move(prompts)};
}

Result<RunOutcome> SearchSession::Execute(const RunInfo& run, const RunSpec& spec,
                                          const std::vector<SourceFile>& tasks, const Ready& ready,
                                          LlmClient& llm, const RunObserver& observer) {
  if (observer.on_start) {
    observer.on_start(run.id, spec, tasks.size());
  }
  const std::string hardware = evaluator_->workers().front().device_name;
  SearchRunner runner(RunnerOptions{.spec = spec,
                                    .model = ready.model,
                                    .role_models = ready.role_models,
                                    .hardware = hardware,
                                    .logger = options_.logger},
                      llm, *evaluator_, db_, ready.prompts);
  Result<std::vector<TaskSummary>> summaries = runner.Run(run.id, tasks, observer, options_.guard);
  // Interrupted: the evaluations in flight were dropped and will never be asked for.
  interrupted_ = evaluator_->outstanding() > 0 ||
                 (options_.guard != nullptr && InterruptGuard::received() != 0);
  if (!summaries.ok()) {
    (void)db_.SetRunStatus(run.id, WorkStatus::kStopped);
    return summaries.status().WithContext(
        fmt::format("run {} stopped (completed steps are kept in {}; continue with --resume)",
                    run.id, options_.db_path));
  }
  RunOutcome outcome{.run_id = run.id,
                     .spec = spec,
                     .tasks = std::move(*summaries),
                     .stop_reason = runner.stop_reason(),
                     .interrupted = runner.interrupted()};
  outcome.stopped =
      outcome.stop_reason.has_value() ||
      std::any_of(outcome.tasks.begin(), outcome.tasks.end(),
                  [](const TaskSummary& s) { return s.status == WorkStatus::kStopped; });
  RETURN_IF_ERROR(
      db_.SetRunStatus(run.id, outcome.stopped ? WorkStatus::kStopped : WorkStatus::kFinished));
  return outcome;
}

Result<nlohmann::json> RunSummaryJson(const RunOutcome& outcome, RunDb& db, const LlmClient& llm,
                                      const std::string& db_path) {
  ASSIGN_OR_RETURN(const ModelSpec model, ParseModelSpec(outcome.spec.model));
  const bool replayed = model.replayed();
  nlohmann::json summary = {
      {"run", outcome.run_id},
      {"db", db_path},
      {"method", SearchMethodName(outcome.spec.method)},
      {"model", outcome.spec.model},
      {"role_models", outcome.spec.roles.by_role},
      {"llm_replayed", replayed},
      {"status", WorkStatusName(outcome.stopped ? WorkStatus::kStopped : WorkStatus::kFinished)},
      {"stop_reason", outcome.stop_reason.value_or("")},
      {"tasks", TasksJson(outcome.tasks)},
      {"cost", llm.ledger().Summary()["total"]}};
  // The cost of the whole run, earlier sessions of a resumed run included.
  ASSIGN_OR_RETURN(summary["run_cost"], db.CallTotals(outcome.run_id));
  return summary;
}

Status WriteRunOutput(const RunOutcome& outcome, const nlohmann::json& summary,
                      const std::string& out_dir) {
  RETURN_IF_ERROR(MakeDirectories(out_dir));
  for (const TaskSummary& s : outcome.tasks) {
    // The name may come from a database anyone could have edited: never a path. A FlashInfer
    // definition's best kernel is a Solution, which FlashInfer-Bench and `eval` read.
    if (!s.best_solution.empty()) {
      RETURN_IF_ERROR(
          WriteFileAtomic(out_dir + "/" + TaskFileStem(s.task) + ".json", s.best_solution));
    } else if (!s.best_kernel.empty()) {
      RETURN_IF_ERROR(WriteFileAtomic(out_dir + "/" + TaskFileStem(s.task) + ".py", s.best_kernel));
    }
  }
  return WriteFileAtomic(out_dir + "/summary.json", JsonText(summary, 2) + "\n");
}

std::optional<RunNotice> StoppedEarlyNotice(const RunOutcome& outcome) {
  if (!outcome.stop_reason) {
    return std::nullopt;
  }
  return RunNotice{
      .text = "run stopped early: " + *outcome.stop_reason,
      .fields = {
          {"event", "run_stopped"}, {"run", outcome.run_id}, {"reason", *outcome.stop_reason}}};
}

}  // namespace adaexplore
