#include "app/search_run.h"

#include <fmt/format.h>

#include "app/devices.h"
#include "app/run_database.h"
#include "app/run_setup.h"
#include "llm/provider.h"
#include "sys/signals.h"

namespace adaexplore {
namespace {

void Notice(const SearchRunEvents& events, const std::string& text, const nlohmann::json& fields) {
  if (events.notice) {
    events.notice(text, fields);
  }
}

// The run's LLM endpoint: a new run records where its model is served; a resumed one goes there
// again unless the user names another endpoint now (the configuration's base_url, or the
// provider's variable), and then says so.
Status SettleEndpoint(RunSpec& spec, const std::optional<RunInfo>& resumed, Config& config,
                      const SearchRunEvents& events) {
  ASSIGN_OR_RETURN(const ModelSpec model, ParseModelSpec(spec.model));
  auto it = config.llm.providers.find(model.provider);
  if (it == config.llm.providers.end()) {
    return Status::Ok();
  }
  const std::optional<Endpoint> now = ProviderEndpoint(it->second);
  if (!now) {
    return Status::Ok();  // Replay: no endpoint.
  }
  if (!resumed || spec.base_url.empty()) {
    spec.base_url = now->base_url;
    return Status::Ok();
  }
  if (!now->named) {
    it->second.base_url = spec.base_url;
    Notice(events,
           fmt::format("run {}: LLM endpoint {}, as the run started", resumed->id, spec.base_url),
           {{"event", "run_endpoint"}, {"run", resumed->id}, {"base_url", spec.base_url}});
  } else if (now->base_url != spec.base_url) {
    Notice(events,
           fmt::format("run {}: LLM endpoint {} as named now, not {} where the run started",
                       resumed->id, now->base_url, spec.base_url),
           {{"event", "run_endpoint_changed"},
            {"run", resumed->id},
            {"base_url", now->base_url},
            {"started_with", spec.base_url}});
  }
  return Status::Ok();
}

// The stored run to continue, its spec with `request.steps` applied (extending it in `db`), and
// `config` judging as it started.
Result<RunInfo> ResumeRun(const SearchRunRequest& request, RunDb& db, Config& config, RunSpec& spec,
                          const SearchRunEvents& events) {
  ASSIGN_OR_RETURN(std::optional<RunInfo> resumed,
                   request.run_id ? db.FindRun(*request.run_id) : db.LatestRun());
  if (!resumed) {
    return NotFound("no run to resume in " + request.db_path);
  }
  ASSIGN_OR_RETURN(spec, RunSpecOf(*resumed));
  if (request.restore_settings) {
    RETURN_IF_ERROR(request.restore_settings(*resumed, config));
  }
  const int steps = request.steps.value_or(spec.steps);
  if (steps < spec.steps) {
    return InvalidArgument(
        fmt::format("run {} has {} steps per task; steps = {} cannot take steps back (more "
                    "extends it)",
                    resumed->id, spec.steps, steps));
  }
  if (steps > spec.steps) {
    RETURN_IF_ERROR(db.ExtendRun(resumed->id, steps));
    Notice(events,
           fmt::format("run {}: extended from {} to {} steps per task", resumed->id, spec.steps,
                       steps),
           {{"event", "run_extended"}, {"run", resumed->id}, {"from", spec.steps}, {"to", steps}});
    spec.steps = steps;
  } else if (resumed->status == WorkStatus::kFinished) {
    Notice(events,
           fmt::format("run {} is finished: every task used its {} steps; resuming it with steps "
                       "above {} (--steps N) extends it",
                       resumed->id, spec.steps, spec.steps),
           {{"event", "run_finished_already"}, {"run", resumed->id}});
  }
  return *resumed;
}

// What the run's settings need of the devices: a speed of light needs a GPU's ceilings (on the
// CPU no kernel has one, eval/verdict.h), CUDA kernels a GPU to build on. Evaluated through NATS,
// the devices are the remote workers'.
Status CheckDevices(const RunSpec& spec, const Config& config, const SearchRunEvents& events) {
  const bool wants_sol = spec.search.rewards.objective == Objective::kSol || spec.stop_at_sol > 0;
  const bool cuda = spec.language == KernelLanguage::kCuda;
  if (!config.nats_url.empty() || (!wants_sol && !cuda)) {
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(const DevicePlan plan, PlanDevices(config.workers, config.gpus_origin));
  if (plan.kind != "cpu") {
    return Status::Ok();
  }
  if (cuda) {
    // Every kernel of such a run would be "needs a GPU": refuse before the first LLM call.
    return InvalidArgument(
        "language cuda (--language, [run] language) needs a GPU to build and check its kernels, "
        "and this run would evaluate on the CPU (device cpu, or no GPU visible): use language "
        "triton, or a machine with a GPU (or NATS to its workers)");
  }
  Notice(events,
         "objective sol and stop_at_sol (--objective, --stop-at-sol, [run]) need a GPU's speed "
         "of light, and this run evaluates on the CPU: no kernel has one, so rewards are "
         "speedups and no task stops early",
         {{"event", "no_speed_of_light"}, {"device", "cpu"}});
  return Status::Ok();
}

}  // namespace

bool SearchRunOutcome::AllLlmCallsFailed() const {
  return calls.calls > 0 && calls.failed_calls == calls.calls;
}

int SearchRunOutcome::ExitCode() const {
  if (run.interrupted) {
    return 130;  // As every command interrupted: the summary and best kernels are written.
  }
  if (run.stopped) {
    return 3;
  }
  return AllLlmCallsFailed() ? 1 : 0;
}

Result<std::unique_ptr<LlmClient>> StartLlmClient(const Config& config,
                                                  const std::string& record_path,
                                                  const std::string& model, const Logger& logger) {
  LlmOptions options = config.llm;
  if (!record_path.empty()) {
    options.record_path = record_path;
  }
  ASSIGN_OR_RETURN(ModelSpec spec, ParseModelSpec(model));
  ASSIGN_OR_RETURN(std::unique_ptr<LlmClient> llm, LlmClient::Create(options, logger));
  RETURN_IF_ERROR(llm->Prepare(spec));
  return llm;
}

Result<SearchRunOutcome> RunSearchRun(Config& config, SearchRunRequest request,
                                      const SearchRunEvents& events, const Logger& logger,
                                      const InterruptGuard& guard) {
  // A run that fails before its search starts leaves no database it created behind.
  NewFileGuard created(request.db_path);
  ASSIGN_OR_RETURN(RunDb db, RunDb::Open(request.db_path));
  // Held until this function returns: one process at a time runs from a database.
  ASSIGN_OR_RETURN(const FileLock lock, LockRunDatabase(request.db_path, created));

  // The run: a new one from the request, or the one being resumed, judged by its own settings.
  std::optional<RunInfo> resumed;
  RunSpec& spec = request.spec;
  if (request.resume) {
    ASSIGN_OR_RETURN(resumed, ResumeRun(request, db, config, spec, events));
  }
  RETURN_IF_ERROR(CheckDevices(spec, config, events));
  RETURN_IF_ERROR(SettleEndpoint(spec, resumed, config, events));
  ASSIGN_OR_RETURN(std::unique_ptr<LlmClient> llm,
                   StartLlmClient(config, request.record_path, spec.model, logger));
  ASSIGN_OR_RETURN(std::unique_ptr<SearchSession> session,
                   OpenSearchSession(config, std::move(db), request.db_path, logger, guard));
  created.Keep();
  Result<RunOutcome> outcome = [&] {
    const RunObserver observer =
        events.watch ? events.watch(*llm, session->evaluator().workers().front()) : RunObserver{};
    Result<RunOutcome> ran = resumed ? session->Resume(resumed->id, *llm, observer)
                                     : session->Start(spec, request.tasks, *llm, observer);
    if (events.ended) {
      events.ended();
    }
    return ran;
  }();
  if (!outcome.ok()) {
    return outcome.status();
  }
  if (const std::optional<RunNotice> stopped = StoppedEarlyNotice(*outcome)) {
    Notice(events, stopped->text, stopped->fields);
  }
  SearchRunOutcome out{.run = std::move(*outcome), .calls = llm->ledger().Total()};
  ASSIGN_OR_RETURN(out.summary, RunSummaryJson(out.run, session->db(), *llm, request.db_path));
  RETURN_IF_ERROR(WriteRunOutput(out.run, out.summary, request.out_dir));
  return out;
}

}  // namespace adaexplore
