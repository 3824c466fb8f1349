#include "cli/adapt_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "adapt/adapt_stage.h"
#include "adapt/memory_update.h"
#include "adapt/skill_memory.h"
#include "adapt/synthesis.h"
#include "app/devices.h"
#include "app/run_database.h"
#include "app/run_setup.h"
#include "app/search_run.h"
#include "cli/search_progress.h"
#include "config/config.h"
#include "core/clock.h"
#include "core/json_log.h"
#include "core/json_text.h"
#include "llm/client.h"
#include "llm/provider.h"
#include "search/session.h"
#include "store/run_db.h"
#include "sys/fs.h"
#include "sys/new_file_guard.h"
#include "task/source_file.h"
#include "ui/progress_clock.h"
#include "ui/status_line.h"
#include "workers/settings.h"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

// Level-1 examples for synthesis: the files of `dir`, those numbered 1-50 when there are enough
// (the reference drew from ids <= 50).
Result<std::vector<SourceFile>> ReadExamples(const std::string& dir) {
  ASSIGN_OR_RETURN(std::vector<std::string> files, ListPythonFiles(dir));
  std::vector<SourceFile> all, low;
  for (const std::string& file : files) {
    ASSIGN_OR_RETURN(SourceFile example, ReadSourceFile(file));
    const int number = std::atoi(example.name.c_str());
    if (number >= 1 && number <= 50) {
      low.push_back(example);
    }
    all.push_back(std::move(example));
  }
  return low.size() >= 3 ? low : all;
}

Result<std::vector<std::string>> TaskFiles(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    if (fs::is_directory(path)) {
      ASSIGN_OR_RETURN(std::vector<std::string> listed, ListPythonFiles(path));
      files.insert(files.end(), listed.begin(), listed.end());
    } else {
      files.push_back(path);
    }
  }
  return files;
}

// Step 1 of adapt, with --synthesize: the LLM writes new tasks, each checked before it is kept.
// Returns the kept tasks' paths; `summary` gets the synthesis's figures.
Result<std::vector<std::string>> Synthesize(const AdaptFlags& flags, const Config& config,
                                            const RunSpec& base, const std::string& prompts_dir,
                                            LlmClient& llm, const Logger& logger,
                                            nlohmann::json& summary) {
  ASSIGN_OR_RETURN(const ModelSpec model, ModelOf(base, LlmRole::kSynthesiser));
  const std::string root = ProjectRoot();
  if (flags.examples_dir.empty()) {
    return InvalidArgument("--synthesize needs --examples DIR (KernelBench Level-1 problems)");
  }
  ASSIGN_OR_RETURN(DevicePlan plan, PlanDevices(config.workers, config.gpus_origin));
  SynthesisOptions options{
      .count = flags.synthesize,
      .seed = base.seed,
      .model = model,
      .max_output_tokens = base.max_output_tokens,
      .reasoning_effort = base.reasoning_effort,
      .prompts_dir = prompts_dir,
      .python = ResolvePython(config, root),
      .python_path = root + "/python",
      .device = plan.kind,
      .timeout_s = flags.check_timeout_s,
      .out_dir = flags.tasks_out.empty() ? flags.memory_path + ".tasks" : flags.tasks_out,
      .logger = logger};
  ASSIGN_OR_RETURN(options.examples, ReadExamples(flags.examples_dir));
  if (!flags.layers_path.empty()) {
    ASSIGN_OR_RETURN(options.layers, ReadLayerNames(flags.layers_path));
  }
  ASSIGN_OR_RETURN(SynthesisStats synthesis, SynthesizeTasks(llm, options));
  StatusLine(stderr, flags.json ? StatusLine::Format::kJson : StatusLine::Format::kText)
      .Message(fmt::format("synthesis: {} calls, {} tasks kept, {} failed their check, {} "
                           "duplicates, {} without code",
                           synthesis.calls, synthesis.kept.size(), synthesis.invalid,
                           synthesis.duplicates, synthesis.no_code),
               {{"event", "synthesis_done"},
                {"calls", synthesis.calls},
                {"kept", synthesis.kept.size()},
                {"invalid", synthesis.invalid},
                {"duplicates", synthesis.duplicates},
                {"no_code", synthesis.no_code}});
  for (const std::string& problem : synthesis.problems) {
    logger->info("synthesis: dropped: {}", problem);
  }
  summary["synthesis"] = {{"calls", synthesis.calls},     {"kept", synthesis.kept},
                          {"invalid", synthesis.invalid}, {"duplicates", synthesis.duplicates},
                          {"no_code", synthesis.no_code}, {"problems", synthesis.problems}};
  return synthesis.kept;
}

// The waves' progress on stderr: a message as each starts, learns and ends (each run draws its
// own status line). A database or memory this command created is kept from its first use on.
AdaptObserver AdaptProgress(StatusLine& out, StatusLine::Format format, NewFileGuard& db_created,
                            NewFileGuard& memory_created) {
  const TimePoint adapt_start = Clock::now();
  AdaptObserver observer;
  observer.on_wave_start = [&out, adapt_start](const AdaptWave& wave) {
    const size_t done = wave.number - 1;
    nlohmann::json starting = {{"event", "wave_start"},
                               {"wave", wave.number},
                               {"waves", wave.count},
                               {"tasks", wave.tasks.size()},
                               {"rules_in_prompts", wave.rules_in_prompts}};
    starting.update(ProgressClockJson(done, wave.count, Clock::now() - adapt_start));
    out.Message(fmt::format("wave {}/{}: {} task(s), {} rule(s) in the prompts · adapt so far {}",
                            wave.number, wave.count, wave.tasks.size(), wave.rules_in_prompts,
                            ProgressClock(done, wave.count, Clock::now() - adapt_start)),
                std::move(starting));
  };
  observer.run = [format, &db_created](SearchSession& in, LlmClient& client, const RunSpec& spec,
                                       const std::vector<SourceFile>& wave_tasks) {
    db_created.Keep();  // The wave's run is recorded from its first step on.
    return RunWithProgress(in, client, std::nullopt, spec, wave_tasks, format);
  };
  observer.on_learning = [&out](const AdaptWave& wave) {
    out.Message(fmt::format("wave {}/{}: learning rules from the failures of run {}", wave.number,
                            wave.count, wave.run),
                {{"event", "wave_learning"}, {"wave", wave.number}, {"run", wave.run}});
  };
  observer.on_wave_done = [&out, &memory_created](const AdaptWave& wave) {
    memory_created.Keep();
    const MemoryUpdateStats& stats = wave.learned;
    nlohmann::json learned = MemoryUpdateJson(stats);
    learned["event"] = "wave_done";
    learned["wave"] = wave.number;
    out.Message(fmt::format("wave {}/{}: {} failures in {} clusters -> {} rule-writer and {} judge "
                            "calls: {} new rules, {} reinforced, {} no guidance, {} rejected, {} "
                            "unusable replies",
                            wave.number, wave.count, stats.failures, stats.clusters,
                            stats.writer_calls, stats.judge_calls, stats.added, stats.reinforced,
                            stats.no_guidance, stats.rejected, stats.failed_calls),
                std::move(learned));
  };
  return observer;
}

}  // namespace

void AddAdaptCommand(CLI::App& app, AdaptFlags& f) {
  CLI::App* adapt = app.add_subcommand(
      "adapt", "Build a skill memory from the failures of searches (optionally on new tasks)");
  adapt->add_option("--llm", f.model, "provider:model (openai:..., anthropic:..., replay:FILE)");
  adapt->add_option("--memory", f.memory_path, "Skill memory to create or extend (SQLite)")
      ->required();
  adapt->add_option("--synthesize", f.synthesize, "New tasks for the LLM to write first (0)");
  adapt->add_option("--examples", f.examples_dir,
                    "Folder of KernelBench Level-1 problems shown to the synthesiser");
  adapt->add_option("--layers", f.layers_path,
                    "torch.nn layers to draw from (JSON or one per line; default: built in)");
  adapt->add_option("--tasks-out", f.tasks_out, "Where synthesised tasks go (MEMORY.tasks/)");
  adapt->add_option("--task", f.tasks, "Existing task file or folder to adapt on (repeatable)");
  adapt->add_option("--parallel", f.parallel, "Tasks per wave; memory updates between waves (4)")
      ->check(CLI::PositiveNumber);
  adapt->add_option("--min-count", f.search.memory_min_count,
                    "Rules in prompts from this count (3)");
  adapt->add_flag("--include-incorrect", f.include_incorrect,
                  "Also learn from numerical mismatches (off, as the reference)");
  adapt->add_option("--db", f.search.db_path, "Run database of the searches (MEMORY.runs.sqlite)");
  adapt->add_option("--check-timeout", f.check_timeout_s, "Seconds to check a new task (300)");
  adapt->add_flag("--json", f.json, "Print the summary as one JSON object");
  AddSearchSettingFlags(*adapt, f.search);
}

Result<int> RunAdapt(const AdaptFlags& flags) {
  RunFlags search = flags.search;
  search.model = flags.model;
  ASSIGN_OR_RETURN(Config config, LoadJudgingConfig(search.judging));
  ASSIGN_OR_RETURN(Logger logger, MakeCommandLogger(config.log_level, flags.json));
  // The waves' runs: the memory's rules at the start of each wave go into its spec.
  ASSIGN_OR_RETURN(RunSpec base, RunSpecFromFlags(search, config));
  ASSIGN_OR_RETURN(const ModelSpec writer_model, ModelOf(base, LlmRole::kRuleWriter));
  ASSIGN_OR_RETURN(const ModelSpec judge_model, ModelOf(base, LlmRole::kJudge));
  // One client for synthesis, every wave and every memory update: one ledger, one budget.
  ASSIGN_OR_RETURN(std::unique_ptr<LlmClient> llm,
                   StartLlmClient(config, search.record_path, base.model, logger));
  ASSIGN_OR_RETURN(const auto role_models, RoleModelSpecs(base));
  for (const auto& [role, own] : role_models) {  // Each checked before any call.
    RETURN_IF_ERROR(llm->Prepare(own).WithContext(fmt::format("the {} model", LlmRoleName(role))));
  }
  if (flags.memory_path.empty() ||
      (fs::exists(flags.memory_path) && !IsSqliteFile(flags.memory_path))) {
    return InvalidArgument(
        "--memory must name a skill memory database (new or existing); a "
        "rule||count text file can be imported with `adaexplore memory import`");
  }
  // A memory or run database this command creates is removed when it fails before using it.
  NewFileGuard memory_created(flags.memory_path);
  ASSIGN_OR_RETURN(SkillMemory memory, SkillMemory::Open(flags.memory_path));
  const std::string prompts_dir =
      config.prompts_dir.empty() ? ProjectRoot() + "/prompts" : config.prompts_dir;
  ASSIGN_OR_RETURN(RulePrompts rule_prompts, RulePrompts::Load(prompts_dir));
  const std::string db_path =
      search.db_path.empty() ? flags.memory_path + ".runs.sqlite" : search.db_path;
  nlohmann::json summary = {{"memory", flags.memory_path}, {"db", db_path}};

  // 1. New tasks.
  ASSIGN_OR_RETURN(std::vector<std::string> tasks, TaskFiles(flags.tasks));
  if (flags.synthesize > 0) {
    ASSIGN_OR_RETURN(const std::vector<std::string> kept,
                     Synthesize(flags, config, base, prompts_dir, *llm, logger, summary));
    tasks.insert(tasks.begin(), kept.begin(), kept.end());
  }
  if (tasks.empty()) {
    return InvalidArgument("no tasks to adapt on: pass --synthesize N and/or --task");
  }

  // 2. Waves of searches in one session, the memory updated after each (adapt/adapt_stage.h).
  ASSIGN_OR_RETURN(std::vector<SourceFile> sources, ReadTasks(tasks));
  InterruptGuard guard;
  NewFileGuard db_created(db_path);
  ASSIGN_OR_RETURN(RunDb db, RunDb::Open(db_path));
  ASSIGN_OR_RETURN(const FileLock lock, LockRunDatabase(db_path, db_created));
  ASSIGN_OR_RETURN(std::unique_ptr<SearchSession> session,
                   OpenSearchSession(config, std::move(db), db_path, logger, guard));
  const StatusLine::Format format =
      flags.json ? StatusLine::Format::kJson : StatusLine::Format::kText;
  StatusLine out(stderr, format);  // The waves' messages; each run draws its own status.
  ASSIGN_OR_RETURN(const AdaptOutcome outcome,
                   RunAdaptWaves(*session, *llm, memory, rule_prompts,
                                 {.tasks = std::move(sources),
                                  .base = base,
                                  .writer_model = writer_model,
                                  .judge_model = judge_model,
                                  .parallel = static_cast<size_t>(flags.parallel),
                                  .min_count = search.memory_min_count,
                                  .include_incorrect = flags.include_incorrect,
                                  .out_dir = db_path + ".best",
                                  .db_path = db_path,
                                  .logger = logger},
                                 AdaptProgress(out, format, db_created, memory_created)));
  const int exit_code = outcome.stopped ? 3 : 0;
  const MemoryUpdateStats& total = outcome.total;
  nlohmann::json waves = nlohmann::json::array();
  for (const AdaptWave& wave : outcome.waves) {
    waves.push_back(AdaptWaveJson(wave));
  }
  ASSIGN_OR_RETURN(std::vector<Rule> rules, memory.List(0));
  ASSIGN_OR_RETURN(std::vector<std::string> prompt_rules,
                   memory.PromptRules({.min_count = search.memory_min_count}));
  summary["waves"] = waves;
  summary["total"] = MemoryUpdateJson(total);
  summary["rules"] = rules.size();
  summary["rules_in_prompts"] = prompt_rules.size();
  summary["status"] = WorkStatusName(exit_code == 0 ? WorkStatus::kFinished : WorkStatus::kStopped);
  summary["adapt_cost"] = llm->ledger().Summary()["total"];
  if (flags.json) {
    std::printf("%s\n", JsonText(summary).c_str());
  } else {
    std::printf(
        "memory %s: %zu rules, %zu at count >= %d; this adapt: %d failures, %d clusters, "
        "%d rule-writer + %d judge calls, %d new rules, %d reinforced\n",
        flags.memory_path.c_str(), rules.size(), prompt_rules.size(), search.memory_min_count,
        total.failures, total.clusters, total.writer_calls, total.judge_calls, total.added,
        total.reinforced);
  }
  return exit_code;
}

}  // namespace adaexplore
