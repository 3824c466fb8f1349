#include "cli/run_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "app/eval_requests.h"
#include "app/run_setup.h"
#include "app/search_run.h"
#include "cli/search_progress.h"
#include "config/config.h"
#include "core/json_log.h"
#include "core/json_text.h"
#include "report/spending.h"
#include "search/policy.h"
#include "search/session.h"
#include "store/run_db.h"
#include "sys/fs.h"
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
  AddProfileFlag(*run, f.judging.profile);
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
  AddSearchSettingFlags(*run, f);
  AddNatsFlags(*run, f.judging.nats_url, f.judging.nats_queue, f.judging.nats_startup_timeout_s);
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

Result<int> RunSearch(const RunFlags& flags) {
  ASSIGN_OR_RETURN(Config config, LoadJudgingConfig(flags.judging));
  ASSIGN_OR_RETURN(Logger logger, MakeCommandLogger(config.log_level, flags.json));
  const StatusLine::Format format =
      flags.json ? StatusLine::Format::kJson : StatusLine::Format::kText;
  StatusLine notices(stderr, format);
  SearchRunRequest request{.db_path = flags.db_path,
                           .out_dir = flags.out_dir,
                           .record_path = flags.record_path,
                           .resume = flags.resume,
                           .run_id = flags.run_id};
  if (flags.resume) {
    // A resumed run keeps its settings; only --steps counts (more extends it).
    ASSIGN_OR_RETURN(const nlohmann::json given,
                     SettingFlagValues(RunSettingTable(), flags.run_settings));
    if (given.contains("steps")) {
      request.steps = given["steps"].get<int>();
    }
    request.restore_settings = [&flags](const RunInfo& run, Config& restored) {
      return RestoreRunProfile(run, flags, restored);
    };
  } else {
    ASSIGN_OR_RETURN(request.spec, RunSpecFromFlags(flags, config));
    ASSIGN_OR_RETURN(std::vector<std::string> paths, ProblemTaskFiles(flags.problems));
    paths.insert(paths.begin(), flags.tasks.begin(), flags.tasks.end());
    ASSIGN_OR_RETURN(request.tasks, ReadTasks(paths, flags.workloads));
    std::vector<std::string> skipped;
    ASSIGN_OR_RETURN(request.spec.seed_kernels,
                     SeedKernels(flags.seed_kernels, request.tasks, skipped));
    if (!skipped.empty()) {
      notices.Message(fmt::format("--seed-kernel: {} file(s) of the folder name no task of this "
                                  "run, skipped: {}",
                                  skipped.size(), fmt::join(skipped, ", ")),
                      {{"event", "seed_kernels_skipped"}, {"files", skipped}});
    }
  }
  std::optional<SearchProgress> progress;  // The status line, while the run's steps go.
  const SearchRunEvents events{
      .notice = [&notices](const std::string& text,
                           const nlohmann::json& fields) { notices.Message(text, fields); },
      .watch =
          [&progress, format](const LlmClient& llm, const WorkerHello& worker) {
            return progress.emplace(llm, worker, format).Observer();
          },
      .ended = [&progress] { progress.reset(); }};
  const InterruptGuard guard;  // Before the LLM client's thread starts, which inherits it.
  ASSIGN_OR_RETURN(const SearchRunOutcome outcome,
                   RunSearchRun(config, std::move(request), events, logger, guard));
  if (flags.json) {
    std::printf("%s\n", JsonText(outcome.summary).c_str());
  } else {
    for (const TaskSummary& s : outcome.run.tasks) {
      std::printf("%-40s %3d steps  best %s%s\n", s.task.c_str(), s.steps, s.best_verdict.c_str(),
                  s.best_speedup ? fmt::format(" {:.3g}x", *s.best_speedup).c_str() : "");
    }
    std::printf(
        "%s\n",
        CallTotalsLine(outcome.summary.value("run_cost", nlohmann::json::object())).c_str());
    std::printf("best kernels in %s/, run database %s (run %lld)\n", flags.out_dir.c_str(),
                flags.db_path.c_str(), static_cast<long long>(outcome.run.run_id));
  }
  if (outcome.AllLlmCallsFailed() && !outcome.run.interrupted && !outcome.run.stopped) {
    // Not a search result: the endpoint, the key or the model is wrong.
    notices.Message(fmt::format("every LLM call of this session failed ({} of {}): see the "
                                "step messages above for why",
                                outcome.calls.failed_calls, outcome.calls.calls),
                    {{"event", "llm_all_failed"}, {"calls", outcome.calls.calls}});
  }
  return outcome.ExitCode();
}

}  // namespace adaexplore
