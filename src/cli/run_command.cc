#include "cli/run_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "app/devices.h"
#include "app/eval_requests.h"
#include "app/run_setup.h"
#include "cli/search_progress.h"
#include "config/config.h"
#include "core/json_log.h"
#include "core/json_text.h"
#include "llm/provider.h"
#include "search/policy.h"
#include "search/session.h"
#include "store/run_db.h"
#include "sys/file_lock.h"
#include "sys/fs.h"
#include "sys/new_file_guard.h"
#include "sys/signals.h"
#include "task/source_file.h"
#include "ui/status_line.h"
#include "workers/settings.h"

namespace adaexplore {

void AddRunCommand(CLI::App& app, RunFlags& f) {
  CLI::App* run = app.add_subcommand("run", "Search for fast kernels with an LLM");
  run->add_option("--workloads", f.workloads,
                  "FlashInfer-Trace definitions: the first N workloads, positions A-B (from 1), "
                  "or uuids and positions, comma-separated (default: all)");
  run->add_option("--task", f.tasks,
                  "Task file or folder of task files (repeatable): KernelBench, FlashInfer-Trace "
                  "definition (.json) or TritonBench-G operator");
  AddProblemFlags(run, f.problems);
  run->add_option("--llm", f.model, "provider:model (openai:..., anthropic:..., replay:FILE)");
  run->add_option("--method", f.method,
                  fmt::format("{} (default: adaexplore; \"irs\" names ir)", SearchMethodNames()));
  run->add_option("--memory", f.memory_path,
                  "Skill memory: a database from adapt/memory, or rule||count text");
  run->add_option("--memory-min-count", f.memory_min_count, "Rules used from this count (3)");
  AddProfileFlag(*run, f.profile);
  run->add_option("--db", f.db_path, "Run database (adaexplore-run.sqlite)");
  run->add_flag("--resume", f.resume, "Continue the database's latest run (or --run)");
  run->add_option("--run", f.run_id, "With --resume: the run to continue")
      ->check(CLI::PositiveNumber);
  run->add_option("--out", f.out_dir, "Where the best kernels go (adaexplore-out)");
  run->add_flag("--json", f.json, "Print the final summary as one JSON object");
  run->add_option("--expand-ratio", f.expand_ratio,
                  "c_e / c: 1.0 (KernelBench Level 2, default), 0.5 (Level 3); also [search]")
      ->check(CLI::PositiveNumber);
  run->add_option("--seed-kernel", f.seed_kernels,
                  "Start from your own kernel: a file (one task, or named <task>.py or as "
                  "KernelBench names samples), or a folder of such files (those for no task "
                  "are skipped); it is each task's first node (repeatable)");
  run->add_option("--record", f.record_path, "Append every LLM exchange to this recording");
  AddSettingFlags(*run, WorkerSettingTable(), f.worker_settings);
  AddSettingFlags(*run, RunSettingTable(), f.run_settings);
  AddSettingFlags(*run, EvalSettingTable(), f.eval_settings);
  run->add_flag("--no-cache", f.no_cache, "Neither read nor write the result cache");
  AddNatsFlags(*run, f.nats_url, f.nats_queue, f.nats_startup_timeout_s);
  run->add_option("--config", f.config_path, "TOML configuration (default ./adaexplore.toml)");
  run->add_option("--log-level", f.log_level, "trace, debug, info, warn (default), error");
}

namespace {

// The seed kernels by task: a file is the only task's, or the task its stem names, or the
// problem a KernelBench sample name gives (level_L_problem_P_sample_S_kernel.py: its lowest
// sample); a folder holds such files, and those of it that name no task of the run are skipped
// (`skipped` lists them). A file named alone that names no task, or a task given two seeds
// otherwise, is an error.
Result<std::map<std::string, std::string>> SeedKernels(const std::vector<std::string>& given,
                                                       const std::vector<SourceFile>& tasks,
                                                       std::vector<std::string>& skipped) {
  std::vector<std::pair<std::string, bool>> files;  // Path, and whether a folder held it.
  for (const std::string& path : given) {
    if (std::filesystem::is_directory(path)) {
      ASSIGN_OR_RETURN(std::vector<std::string> inside, ListPythonFiles(path));
      if (inside.empty()) {
        return InvalidArgument(fmt::format("--seed-kernel {}: the folder holds no .py file", path));
      }
      for (std::string& file : inside) {
        files.emplace_back(std::move(file), true);
      }
    } else {
      files.emplace_back(path, false);
    }
  }
  std::map<std::string, std::string> seeds;
  std::map<std::string, int> sample_of;  // A task seeded by a KernelBench sample: which one.
  for (const auto& [path, in_folder] : files) {
    // A seed goes into prompts: a link (planted in a folder of kernels) could send any file.
    std::error_code ec;
    if (std::filesystem::is_symlink(path, ec)) {
      return InvalidArgument(
          fmt::format("--seed-kernel {}: a symbolic link, not read (name the file itself)", path));
    }
    const std::optional<FlatKernelName> flat =
        ParseFlatKernelName(std::filesystem::path(path).filename().string());
    std::string task = std::filesystem::path(path).stem().string();
    if (tasks.size() == 1 && given.size() == 1 && files.size() == 1) {
      task = tasks.front().name;
    } else if (flat) {
      for (const SourceFile& t : tasks) {
        if (FlatNameIsFor(*flat, t.path)) {
          task = t.name;
        }
      }
    }
    const bool known = std::any_of(tasks.begin(), tasks.end(),
                                   [&](const SourceFile& t) { return t.name == task; });
    if (!known && in_folder) {
      skipped.push_back(path);
      continue;
    }
    if (!known) {
      return InvalidArgument(
          fmt::format("--seed-kernel {}: no task of this run is named {} (name the file <task>.py)",
                      path, task));
    }
    if (flat && sample_of.contains(task)) {  // Another sample of the same problem: the lowest.
      if (flat->sample > sample_of[task]) {
        continue;
      }
      seeds.erase(task);
    }
    ASSIGN_OR_RETURN(SourceFile seed, ReadSourceFile(path));
    if (!seeds.emplace(task, seed.source).second) {
      return InvalidArgument(fmt::format("--seed-kernel: two seeds for the task {}", task));
    }
    if (flat) {
      sample_of[task] = flat->sample;
    }
  }
  return seeds;
}

}  // namespace

// The run's LLM endpoint: a new run records where its model is served; a resumed one goes there
// again unless the user names another endpoint now (the configuration's base_url, or the
// provider's variable), and then says so.
Status SettleEndpoint(RunSpec& spec, const std::optional<RunInfo>& resumed, Config& config,
                      StatusLine& notices) {
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
    notices.Message(
        fmt::format("run {}: LLM endpoint {}, as the run started", resumed->id, spec.base_url),
        {{"event", "run_endpoint"}, {"run", resumed->id}, {"base_url", spec.base_url}});
  } else if (now->base_url != spec.base_url) {
    notices.Message(
        fmt::format("run {}: LLM endpoint {} as named now, not {} where the run started",
                    resumed->id, now->base_url, spec.base_url),
        {{"event", "run_endpoint_changed"},
         {"run", resumed->id},
         {"base_url", now->base_url},
         {"started_with", spec.base_url}});
  }
  return Status::Ok();
}

Result<int> RunSearch(const RunFlags& flags) {
  ASSIGN_OR_RETURN(Config config, LoadRunConfig(flags));
  ASSIGN_OR_RETURN(Logger logger, MakeCommandLogger(config.log_level, flags.json));
  StatusLine notices(stderr, flags.json ? StatusLine::Format::kJson : StatusLine::Format::kText);
  // A command that fails before its search starts leaves no database it created behind.
  NewFileGuard created(flags.db_path);
  ASSIGN_OR_RETURN(RunDb db, RunDb::Open(flags.db_path));
  // One process at a time runs from a database: a second `run --resume` of a run still going
  // refuses at once rather than racing it to the same steps. Held until this function returns.
  Result<FileLock> lock = FileLock::TryAcquire(flags.db_path + ".lock");
  if (!lock.ok()) {
    return lock.status().code() == StatusCode::kUnavailable
               ? Unavailable(fmt::format("the run database {} is in use: {}; wait for that run to "
                                         "end (or stop it), or give this one another --db",
                                         flags.db_path, lock.status().message()))
               : lock.status();
  }
  created.Also(flags.db_path + ".lock");  // Ours now; released before the guard removes it.

  // The run: a new one from the flags, or the one being resumed, judged by its own settings.
  std::optional<RunInfo> resumed;
  RunSpec spec;
  std::vector<SourceFile> tasks;
  if (flags.resume) {
    ASSIGN_OR_RETURN(resumed, flags.run_id ? db.FindRun(*flags.run_id) : db.LatestRun());
    if (!resumed) {
      return NotFound("no run to resume in " + flags.db_path);
    }
    ASSIGN_OR_RETURN(spec, RunSpecOf(*resumed));
    RETURN_IF_ERROR(RestoreRunProfile(*resumed, flags, config));
    // A resumed run keeps its settings; only --steps counts (more extends it).
    ASSIGN_OR_RETURN(const nlohmann::json given,
                     SettingFlagValues(RunSettingTable(), flags.run_settings));
    const int steps = given.value("steps", spec.steps);
    if (steps < spec.steps) {
      return InvalidArgument(fmt::format(
          "run {} has {} steps per task; --steps {} cannot take steps back (more extends it)",
          resumed->id, spec.steps, steps));
    }
    if (steps > spec.steps) {
      RETURN_IF_ERROR(db.ExtendRun(resumed->id, steps));
      notices.Message(
          fmt::format("run {}: extended from {} to {} steps per task", resumed->id, spec.steps,
                      steps),
          {{"event", "run_extended"}, {"run", resumed->id}, {"from", spec.steps}, {"to", steps}});
      spec.steps = steps;
    } else if (resumed->status == WorkStatus::kFinished) {
      notices.Message(fmt::format("run {} is finished: every task used its {} steps; --resume "
                                  "--steps N with N above {} extends it",
                                  resumed->id, spec.steps, spec.steps),
                      {{"event", "run_finished_already"}, {"run", resumed->id}});
    }
  } else {
    ASSIGN_OR_RETURN(spec, RunSpecFromFlags(flags, config));
    ASSIGN_OR_RETURN(std::vector<std::string> paths, ProblemTaskFiles(flags.problems));
    paths.insert(paths.begin(), flags.tasks.begin(), flags.tasks.end());
    ASSIGN_OR_RETURN(tasks, ReadTasks(paths, flags.workloads));
    std::vector<std::string> skipped;
    ASSIGN_OR_RETURN(spec.seed_kernels, SeedKernels(flags.seed_kernels, tasks, skipped));
    if (!skipped.empty()) {
      notices.Message(fmt::format("--seed-kernel: {} file(s) of the folder name no task of this "
                                  "run, skipped: {}",
                                  skipped.size(), fmt::join(skipped, ", ")),
                      {{"event", "seed_kernels_skipped"}, {"files", skipped}});
    }
  }
  const bool wants_sol = spec.search.rewards.objective == Objective::kSol || spec.stop_at_sol > 0;
  if (wants_sol && flags.nats_url.empty()) {
    // A speed of light needs a GPU's ceilings: on the CPU no kernel has one (eval/verdict.h).
    ASSIGN_OR_RETURN(const DevicePlan plan, PlanDevices(config.workers, config.gpus_origin));
    if (plan.kind == "cpu") {
      notices.Message(
          "--objective sol and --stop-at-sol need a GPU's speed of light, and this run evaluates "
          "on the CPU: no kernel has one, so rewards are speedups and no task stops early",
          {{"event", "no_speed_of_light"}, {"device", "cpu"}});
    }
  }
  if (spec.language == KernelLanguage::kCuda && flags.nats_url.empty()) {
    // Every kernel of such a run would be "needs a GPU": refuse before the first LLM call.
    ASSIGN_OR_RETURN(const DevicePlan plan, PlanDevices(config.workers, config.gpus_origin));
    if (plan.kind == "cpu") {
      return InvalidArgument(
          "--language cuda needs a GPU to build and check its kernels, and this run would "
          "evaluate on the CPU (--device cpu, or no GPU visible): use --language triton, or a "
          "machine with a GPU (or --nats to its workers)");
    }
  }
  RETURN_IF_ERROR(SettleEndpoint(spec, resumed, config, notices));
  // Before the client's I/O thread starts, so that it inherits the blocked signals and an
  // interrupt wakes the run's poll at once.
  InterruptGuard guard;
  ASSIGN_OR_RETURN(std::unique_ptr<LlmClient> llm,
                   StartLlmClient(config, flags, spec.model, logger));
  ASSIGN_OR_RETURN(std::unique_ptr<SearchSession> session,
                   OpenSearchSession(config, std::move(db), flags.db_path, logger, guard));
  created.Keep();
  ASSIGN_OR_RETURN(
      const RunOutcome outcome,
      RunWithProgress(*session, *llm, resumed ? std::optional<int64_t>(resumed->id) : std::nullopt,
                      spec, tasks,
                      flags.json ? StatusLine::Format::kJson : StatusLine::Format::kText));
  ASSIGN_OR_RETURN(const nlohmann::json summary,
                   RunSummaryJson(outcome, session->db(), *llm, flags.db_path));
  RETURN_IF_ERROR(WriteRunOutput(outcome, summary, flags.out_dir));
  if (flags.json) {
    std::printf("%s\n", JsonText(summary).c_str());
  } else {
    for (const TaskSummary& s : outcome.tasks) {
      std::printf("%-40s %3d steps  best %s%s\n", s.task.c_str(), s.steps, s.best_verdict.c_str(),
                  s.best_speedup ? fmt::format(" {:.3g}x", *s.best_speedup).c_str() : "");
    }
    std::printf("best kernels in %s/, run database %s (run %lld)\n", flags.out_dir.c_str(),
                flags.db_path.c_str(), static_cast<long long>(outcome.run_id));
  }
  if (outcome.interrupted) {
    return 130;  // As every command interrupted: the summary and best kernels are written.
  }
  if (outcome.stopped) {
    return 3;
  }
  const LedgerTotals calls = llm->ledger().Total();
  if (calls.calls > 0 && calls.failed_calls == calls.calls) {
    // Not a search result: the endpoint, the key or the model is wrong.
    notices.Message(fmt::format("every LLM call of this session failed ({} of {}): see the "
                                "step messages above for why",
                                calls.failed_calls, calls.calls),
                    {{"event", "llm_all_failed"}, {"calls", calls.calls}});
    return 1;
  }
  return 0;
}

}  // namespace adaexplore
