#include "cli/run_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "adapt/skill_memory.h"
#include "cli/eval_command.h"
#include "cli/run_setup.h"
#include "config/config.h"
#include "core/hash.h"
#include "core/text.h"
#include "search/runner.h"
#include "store/run_db.h"
#include "sys/fs.h"
#include "sys/signals.h"
#include "ui/status_line.h"

namespace adaexplore {
namespace {

constexpr size_t kMaxMemoryRules = 200;

// Tasks named on the command line: files, or folders of .py files.
Result<std::vector<SourceFile>> ReadTasks(const std::vector<std::string>& paths) {
  std::vector<SourceFile> tasks;
  for (const std::string& path : paths) {
    std::vector<std::string> files = {path};
    if (std::filesystem::is_directory(path)) {
      ASSIGN_OR_RETURN(files, ListPythonFiles(path));
    }
    for (const std::string& file : files) {
      ASSIGN_OR_RETURN(SourceFile task, ReadSourceFile(file));
      tasks.push_back(std::move(task));
    }
  }
  if (tasks.empty()) {
    return InvalidArgument("no task: pass --task FILE or a folder of task files");
  }
  return tasks;
}

// A skill memory: a database (`adaexplore memory`, `adaexplore adapt`), or a text file with one
// rule per line, "rule||count" (the reference's format) or a bare rule (count 1). Rules below
// `min_count` are left out.
Result<std::vector<std::string>> ReadMemoryRules(const std::string& path, int min_count) {
  if (IsSqliteFile(path)) {
    ASSIGN_OR_RETURN(SkillMemory memory, SkillMemory::Open(path));
    return memory.PromptRules({.min_count = min_count});
  }
  ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  std::vector<std::string> rules;
  for (std::string_view raw : SplitLines(text)) {
    if (rules.size() >= kMaxMemoryRules) {
      break;
    }
    std::string line(raw);
    if (Trim(line).empty()) {
      continue;
    }
    int count = 1;
    if (size_t bar = line.rfind("||"); bar != std::string::npos) {
      count = std::atoi(line.c_str() + bar + 2);
      line.erase(bar);
    }
    if (count >= min_count) {
      rules.push_back(line);
    }
  }
  return rules;
}

nlohmann::json SummaryJson(const std::vector<TaskSummary>& summaries) {
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

// The evaluation part of the flags, for ApplyEvalFlags.

}  // namespace

EvalFlags EvalPart(const RunFlags& f) {
  EvalFlags eval;
  eval.profile = f.profile;
  eval.settings = f.eval_settings;
  eval.device = f.device;
  eval.gpus = f.gpus;
  eval.slots = f.slots;
  eval.python = f.python;
  eval.no_cache = f.no_cache;
  eval.log_level = f.log_level;
  eval.nats_url = f.nats_url;
  eval.nats_queue = f.nats_queue;
  eval.nats_startup_timeout_s = f.nats_startup_timeout_s;
  return eval;
}

void AddRunCommand(CLI::App& app, RunFlags& f) {
  CLI::App* run = app.add_subcommand("run", "Search for fast kernels with an LLM");
  run->add_option("--task", f.tasks, "Task file or folder of task files (repeatable)");
  run->add_option("--llm", f.model, "provider:model (openai:..., anthropic:..., replay:FILE)");
  run->add_option("--method", f.method, "adaexplore (default), ps or ir");
  run->add_option("--steps", f.steps, "Steps (kernels) per task (50)")->check(CLI::PositiveNumber);
  run->add_option("--memory", f.memory_path,
                  "Skill memory: a database from adapt/memory, or rule||count text");
  run->add_option("--memory-min-count", f.memory_min_count, "Rules used from this count (3)");
  run->add_option("--profile", f.profile, "Evaluation profile: strict (default) or paper");
  run->add_option("--language", f.language, "triton (default) or cuda");
  run->add_option("--db", f.db_path, "Run database (adaexplore-run.sqlite)");
  run->add_flag("--resume", f.resume, "Continue the database's latest run (or --run)");
  run->add_option("--run", f.run_id, "With --resume: the run to continue");
  run->add_option("--out", f.out_dir, "Where the best kernels go (adaexplore-out)");
  run->add_flag("--json", f.json, "Print the final summary as one JSON object");
  run->add_option("--seed", f.seed, "Seed of the search's random choices (0)");
  run->add_flag("--no-reviser", f.no_reviser, "Small steps without the reviser call");
  run->add_flag("--confirm-best", f.confirm_best,
                "Measure a new best again on another worker before accepting it");
  run->add_option("--expand-ratio", f.expand_ratio,
                  "c_e / c: 1.0 (KernelBench Level 2, default), 0.5 (Level 3); also [search]");
  run->add_option("--reasoning-effort", f.reasoning_effort, "minimal, low, medium or high");
  run->add_option("--max-output-tokens", f.max_output_tokens, "Output limit per LLM call");
  run->add_option("--record", f.record_path, "Append every LLM exchange to this recording");
  run->add_option("--device", f.device, "auto (default), cuda or cpu");
  run->add_option("--gpus", f.gpus, "GPU indices to use (default: all visible)")->delimiter(',');
  run->add_option("--slots", f.slots,
                  "Evaluations per device at once; timing stays exclusive (default 2 per GPU)");
  run->add_option("--python", f.python, "Python interpreter with torch and triton");
  AddSettingFlags(*run, EvalSettingTable(), f.eval_settings);
  run->add_flag("--no-cache", f.no_cache, "Neither read nor write the result cache");
  AddNatsFlags(*run, f.nats_url, f.nats_queue, f.nats_startup_timeout_s);
  run->add_option("--config", f.config_path, "TOML configuration (default ./adaexplore.toml)");
  run->add_option("--log-level", f.log_level, "trace, debug, info, warn (default), error");
}

SearchSettings EffectiveSearch(const RunFlags& flags, const Config& config) {
  SearchSettings search = config.search;
  if (flags.expand_ratio > 0) {
    search.explore.expand_ratio = flags.expand_ratio;
  }
  return search;
}

Result<Config> LoadRunConfig(const RunFlags& flags) {
  Config config;
  RETURN_IF_ERROR(LoadConfigFile(flags.config_path.empty() ? "adaexplore.toml" : flags.config_path,
                                 !flags.config_path.empty(), config));
  RETURN_IF_ERROR(ApplyEvalFlags(EvalPart(flags), config));
  return config;
}

Status RestoreRunProfile(const RunInfo& run, const RunFlags& flags, Config& config) {
  // Runs made before the settings were stored kept only profile and precision.
  ASSIGN_OR_RETURN(config.profile, ProfileByName(run.options.value("profile", "strict")));
  const nlohmann::json stored =
      run.options.contains("eval")
          ? run.options["eval"]
          : nlohmann::json{{"precision", run.options.value("precision", "fp32")}};
  if (Status s = ApplyEvalSettings(stored, config.profile); !s.ok()) {
    return s.WithContext(fmt::format("run {}'s stored evaluation settings", run.id));
  }
  // The run's settings take the place of the config file's; flags other than the profile and
  // precision still count (a longer timeout, say).
  config.eval_file = stored;
  EvalFlags eval = EvalPart(flags);
  eval.profile.clear();
  eval.settings.given.erase("precision");
  return ApplyEvalFlags(eval, config);
}

Result<int> RunSearch(const RunFlags& flags) {
  ASSIGN_OR_RETURN(Config config, LoadRunConfig(flags));
  ASSIGN_OR_RETURN(Logger logger, MakeStderrLogger(config.log_level));
  ASSIGN_OR_RETURN(RunDb db, RunDb::Open(flags.db_path));

  // The run: a new one from the flags, or the one being resumed with its own settings.
  RunInfo run;
  std::vector<SourceFile> tasks;
  if (flags.resume) {
    ASSIGN_OR_RETURN(std::optional<RunInfo> found,
                     flags.run_id > 0 ? db.FindRun(flags.run_id) : db.LatestRun());
    if (!found) {
      return NotFound("no run to resume in " + flags.db_path);
    }
    run = *found;
    ASSIGN_OR_RETURN(std::vector<TaskInfo> stored, db.Tasks(run.id));
    for (const TaskInfo& t : stored) {
      tasks.push_back(
          {.path = "", .name = t.name, .source = t.source, .sha256 = Sha256Hex(t.source)});
    }
  } else {
    const std::string model = flags.model.empty() ? config.llm.model : flags.model;
    if (model.empty()) {
      return InvalidArgument("no model: pass --llm provider:model or set [llm] model");
    }
    ASSIGN_OR_RETURN(tasks, ReadTasks(flags.tasks));
    std::vector<std::string> rules;
    if (!flags.memory_path.empty()) {
      ASSIGN_OR_RETURN(rules, ReadMemoryRules(flags.memory_path, flags.memory_min_count));
    }
    run = RunInfo{.method = flags.method,
                  .model = model,
                  .options = {{"steps", flags.steps},
                              {"seed", flags.seed},
                              {"language", flags.language},
                              {"reviser", !flags.no_reviser},
                              {"search", SearchSettingsJson(EffectiveSearch(flags, config))},
                              {"confirm_best", flags.confirm_best},
                              {"reasoning_effort", flags.reasoning_effort},
                              {"max_output_tokens", flags.max_output_tokens},
                              {"profile", config.profile.name},
                              {"precision", config.profile.job.precision},
                              {"eval", EvalSettings(config.profile)},
                              {"memory_rules", rules}}};
    if (!flags.label.empty()) {
      run.options["label"] = flags.label;
    }
  }
  std::optional<SearchMethod> method = SearchMethodFromName(run.method);
  if (!method) {
    return InvalidArgument("--method must be adaexplore, ps or ir, not '" + run.method + "'");
  }
  std::optional<KernelLanguage> language =
      KernelLanguageFromName(run.options.value("language", "triton"));
  if (!language) {
    return InvalidArgument("--language must be triton or cuda");
  }
  ASSIGN_OR_RETURN(ModelSpec model, ParseModelSpec(run.model));
  if (flags.resume) {
    RETURN_IF_ERROR(RestoreRunProfile(run, flags, config));
  }

  LlmOptions llm_options = config.llm;
  if (!flags.record_path.empty()) {
    llm_options.record_path = flags.record_path;
  }
  ASSIGN_OR_RETURN(std::unique_ptr<LlmClient> llm, LlmClient::Create(llm_options, logger));
  RETURN_IF_ERROR(llm->Prepare(model));  // A missing key stops here, before any work.
  // The budget covers the whole run: a resumed one has spent some of it already.
  double spent_usd = flags.spent_usd;
  int64_t spent_tokens = flags.spent_tokens;
  if (flags.resume) {
    ASSIGN_OR_RETURN(const nlohmann::json before, db.CallTotals(run.id));
    spent_usd += before.value("cost_usd", 0.0);
    spent_tokens +=
        before.value("input_tokens", int64_t{0}) + before.value("output_tokens", int64_t{0});
  }
  llm->ledger().AddSpentElsewhere(spent_usd, spent_tokens);
  ASSIGN_OR_RETURN(
      PromptSet prompts,
      PromptSet::Load(config.prompts_dir.empty() ? ProjectRoot() + "/prompts" : config.prompts_dir,
                      *language, config.profile));

  InterruptGuard guard;
  ASSIGN_OR_RETURN(TempDir scratch, TempDir::Create("adaexplore-run-"));
  ASSIGN_OR_RETURN(std::unique_ptr<Evaluator> evaluator,
                   StartEvaluator(config, false, logger, scratch, guard));
  if (!flags.resume) {
    ASSIGN_OR_RETURN(run.id, db.CreateRun(run));
  } else {
    RETURN_IF_ERROR(db.SetRunStatus(run.id, WorkStatus::kRunning));
  }
  const WorkerHello& worker = evaluator->workers().front();
  const bool replayed = model.provider == "replay";
  (void)std::fprintf(stderr, "run %lld: %s on %zu task(s), %d steps each, %s, evaluated on %s%s\n",
                     static_cast<long long>(run.id), run.method.c_str(), tasks.size(),
                     run.options.value("steps", 50), run.model.c_str(), worker.device_name.c_str(),
                     replayed ? " (LLM replies replayed from a recording: no LLM is called)" : "");
  if (worker.device_kind == "cpu") {
    (void)std::fprintf(stderr,
                       "no GPU: kernels run in Triton's interpreter on the CPU, so "
                       "correctness is real but speedups are not meaningful\n");
  }

  RunnerOptions options{.method = *method,
                        .steps = run.options.value("steps", 50),
                        .model = model,
                        .seed = run.options.value("seed", uint64_t{0}),
                        .hardware = worker.device_name,
                        .reviser = run.options.value("reviser", true),
                        .max_output_tokens = run.options.value("max_output_tokens", int64_t{0}),
                        .reasoning_effort = run.options.value("reasoning_effort", ""),
                        .logger = logger};
  // The run's own search constants (runs from before they were stored kept only the ratio).
  SearchSettings search;
  if (Status s = ApplySearchSettings(
          run.options.contains("search")
              ? run.options["search"]
              : nlohmann::json{{"expand_ratio", run.options.value("expand_ratio", 1.0)}},
          search);
      !s.ok()) {
    return s.WithContext(fmt::format("run {}'s stored search settings", run.id));
  }
  options.explore = search.explore;
  options.rewards = search.rewards;
  options.confirm_best = run.options.value("confirm_best", false);
  if (run.options.contains("memory_rules") && run.options["memory_rules"].is_array()) {
    options.memory_rules = run.options["memory_rules"].get<std::vector<std::string>>();
  }
  SearchRunner runner(options, *llm, *evaluator, db, prompts);
  StatusLine status(stderr);
  std::map<std::string, TaskProgress> latest;
  Result<std::vector<TaskSummary>> summaries = runner.Run(
      run.id, tasks,
      [&](const TaskProgress& p) {
        const LedgerTotals totals = llm->ledger().Total();
        // Calls without a price make the total a lower bound; with none priced it is unknown.
        const std::string cost = totals.unpriced_calls == 0
                                     ? fmt::format("${:.4f}", totals.cost_usd)
                                 : totals.unpriced_calls < totals.calls
                                     ? fmt::format(">= ${:.4f} ({} unpriced calls)",
                                                   totals.cost_usd, totals.unpriced_calls)
                                     : std::string("cost unknown (no price set)");
        status.Message(
            fmt::format("[{}] step {}/{} {} -> {}{} (best {}) {}", p.task, p.steps_done, p.steps,
                        p.move, p.verdict, p.speedup ? fmt::format(" {:.3g}x", *p.speedup) : "",
                        p.best_speedup ? fmt::format("{:.3g}x", *p.best_speedup) : "none", cost));
        latest[p.task] = p;
        std::string line = cost;
        const std::string correct(VerdictName(Verdict::kCorrect));
        for (const auto& [name, progress] : latest) {
          line += fmt::format(
              " | {} {}/{} best {} ok {}", name, progress.steps_done, progress.steps,
              progress.best_speedup ? fmt::format("{:.3g}x", *progress.best_speedup) : "-",
              progress.verdicts.contains(correct) ? progress.verdicts.at(correct) : 0);
        }
        status.SetStatus(line);
      },
      &guard);
  status.SetStatus("");  // Take the status line down before the summary is printed.
  if (!summaries.ok()) {
    (void)db.SetRunStatus(run.id, WorkStatus::kStopped);
    return summaries.status().WithContext(
        fmt::format("run {} stopped (completed steps are kept in {}; continue with --resume)",
                    run.id, flags.db_path));
  }
  const bool stopped = runner.stop_reason().has_value() ||
                       std::any_of(summaries->begin(), summaries->end(), [](const TaskSummary& s) {
                         return s.status == WorkStatus::kStopped;
                       });
  RETURN_IF_ERROR(db.SetRunStatus(run.id, stopped ? WorkStatus::kStopped : WorkStatus::kFinished));

  RETURN_IF_ERROR(MakeDirectories(flags.out_dir));
  for (const TaskSummary& s : *summaries) {
    if (!s.best_kernel.empty()) {
      RETURN_IF_ERROR(WriteFileAtomic(flags.out_dir + "/" + s.task + ".py", s.best_kernel));
    }
  }
  nlohmann::json summary = {{"run", run.id},
                            {"db", flags.db_path},
                            {"method", run.method},
                            {"model", run.model},
                            {"llm_replayed", replayed},
                            {"status", stopped ? "stopped" : "finished"},
                            {"stop_reason", runner.stop_reason().value_or("")},
                            {"tasks", SummaryJson(*summaries)},
                            {"cost", llm->ledger().Summary()["total"]}};
  // The cost of the whole run, earlier sessions of a resumed run included.
  ASSIGN_OR_RETURN(summary["run_cost"], db.CallTotals(run.id));
  RETURN_IF_ERROR(WriteFileAtomic(flags.out_dir + "/summary.json", summary.dump(2) + "\n"));
  if (flags.json) {
    std::printf("%s\n", summary.dump().c_str());
  } else if (!flags.quiet) {
    for (const TaskSummary& s : *summaries) {
      std::printf("%-40s %3d steps  best %s%s\n", s.task.c_str(), s.steps, s.best_verdict.c_str(),
                  s.best_speedup ? fmt::format(" {:.3g}x", *s.best_speedup).c_str() : "");
    }
    std::printf("best kernels in %s/, run database %s (run %lld)\n", flags.out_dir.c_str(),
                flags.db_path.c_str(), static_cast<long long>(run.id));
  }
  if (runner.stop_reason()) {
    (void)std::fprintf(stderr, "run stopped early: %s\n", runner.stop_reason()->c_str());
  }
  return stopped ? 3 : 0;
}

}  // namespace adaexplore
