#include "cli/bench_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "app/run_database.h"
#include "app/run_setup.h"
#include "app/search_run.h"
#include "cli/output_file.h"
#include "cli/search_progress.h"
#include "config/config.h"
#include "core/clock.h"
#include "core/json_log.h"
#include "core/json_text.h"
#include "eval/baseline.h"
#include "report/html_report.h"
#include "report/run_report.h"
#include "search/policy.h"
#include "store/run_db.h"
#include "suite/suite_bench.h"
#include "sys/fs.h"
#include "sys/new_file_guard.h"
#include "sys/signals.h"
#include "task/problems.h"
#include "task/source_file.h"
#include "ui/progress_clock.h"
#include "ui/status_line.h"
#include "workers/settings.h"

namespace adaexplore {
namespace {

// The bench's progress on stderr: its own messages above each run's status line.
SuiteBenchObserver BenchObserver(StatusLine& out, const std::string& dir, size_t tasks,
                                 StatusLine::Format format, TimePoint bench_start) {
  auto baselines_start = std::make_shared<TimePoint>(Clock::now());
  SuiteBenchObserver observer;
  observer.on_baselines_start = [&out, baselines_start](size_t count, bool compile,
                                                        const std::string& device) {
    *baselines_start = Clock::now();
    out.Message(fmt::format("bench: timing {} task(s) alone (eager{}) on {}", count,
                            compile ? " and torch.compile" : "", device),
                {{"event", "baselines_start"}, {"tasks", count}, {"compile", compile}});
  };
  observer.on_baselines_progress = [&out, baselines_start](size_t done, size_t total) {
    const Duration elapsed = Clock::now() - *baselines_start;
    nlohmann::json fields = {
        {"command", "bench"}, {"phase", "baselines"}, {"done", done}, {"total", total}};
    fields.update(ProgressClockJson(done, total, elapsed));
    out.SetStatus(fmt::format("bench: baselines {}/{} timed · {}", done, total,
                              ProgressClock(done, total, elapsed)),
                  std::move(fields));
  };
  observer.on_baseline_missing = [&out](const Baseline& b) {
    out.SetStatus("");
    if (!b.eager) {
      out.Message(fmt::format("bench: {}: no baseline: {}", b.task, b.error),
                  {{"event", "baseline_failed"}, {"task", b.task}, {"error", b.error}});
      return;
    }
    out.Message(fmt::format("bench: {}: no torch.compile baseline{}{}", b.task,
                            b.notes.empty() ? "" : ": ", b.notes.empty() ? "" : b.notes.front()),
                {{"event", "compile_baseline_failed"}, {"task", b.task}, {"notes", b.notes}});
  };
  observer.on_baselines_done = [&out, baselines_start](size_t measured, size_t cached,
                                                       size_t failed, size_t compile_failed) {
    out.SetStatus("");
    out.Message(
        fmt::format("bench: baselines: {} measured, {} from the cache, {} failed{}", measured,
                    cached, failed,
                    compile_failed > 0
                        ? fmt::format(", {} without their torch.compile baseline", compile_failed)
                        : ""),
        {{"event", "baselines_done"},
         {"measured", measured},
         {"cached", cached},
         {"failed", failed},
         {"compile_failed", compile_failed},
         {"elapsed_s", ProgressClockJson(1, 1, Clock::now() - *baselines_start)["elapsed_s"]}});
  };
  observer.on_method = [&out, dir, tasks, bench_start](const BenchMethod& m) {
    nlohmann::json event = {
        {"event", "bench_method"}, {"index", m.index}, {"methods", m.count}, {"method", m.method}};
    if (m.status == BenchMethod::Status::kFinished) {
      event["run"] = m.run;
      event["status"] = "finished";
      out.Message(fmt::format("bench: {} ({}/{}): run {} already finished", m.method, m.index,
                              m.count, m.run),
                  std::move(event));
      return;
    }
    const bool resumed = m.status == BenchMethod::Status::kResumed;
    event["status"] = resumed ? "resumed" : "new";
    event.update(ProgressClockJson(m.index - 1, m.count, Clock::now() - bench_start));
    out.Message(fmt::format("bench: {} ({}/{}) on {} task(s) of {}{} · bench so far {}", m.method,
                            m.index, m.count, tasks, dir, resumed ? " (resumed)" : "",
                            ProgressClock(m.index - 1, m.count, Clock::now() - bench_start)),
                std::move(event));
  };
  observer.run = [format](SearchSession& session, LlmClient& llm, std::optional<int64_t> resume,
                          const RunSpec& spec, const std::vector<SourceFile>& suite_tasks) {
    return RunWithProgress(session, llm, resume, spec, suite_tasks, format);
  };
  return observer;
}

}  // namespace

double BenchExpandRatio(const BenchFlags& f) {
  return f.expand_ratio ? *f.expand_ratio : SuiteExpandRatio(f.suite);
}

void AddBenchCommand(CLI::App& app, BenchFlags& f) {
  CLI::App* bench = app.add_subcommand(
      "bench", "Search a whole suite with one or more methods, then report the metrics");
  bench->add_option("--suite", f.suite, "Folder of tasks, or kernelbench:level1|2|3");
  bench->add_option("--level", f.level, "KernelBench's level: --suite kernelbench:levelN")
      ->check(CLI::Range(1, 4));
  bench->add_option("--problem", f.problems,
                    "Only these problem numbers: 40, 1-10 or 1,4,9 (the number a file name "
                    "starts with)");
  bench->add_option("--kernelbench", f.kernelbench_dir,
                    "KernelBench checkout for kernelbench:levelN (default $KERNELBENCH_DIR, "
                    "else $ADAEXPLORE_DATA/kernelbench)");
  bench->add_option("--limit", f.limit, "Only the first K tasks by problem number")
      ->check(CLI::PositiveNumber);
  bench->add_option("--method", f.methods, SearchMethodNames() + " (comma-separated: several runs)")
      ->delimiter(',');
  RunFlags& r = f.search;
  bench->add_option("--llm", r.model, "provider:model (openai:..., anthropic:..., replay:FILE)");
  bench->add_option("--db", r.db_path, "Run database (adaexplore-bench.sqlite)");
  bench->add_option("--out", r.out_dir, "Best kernels, per method (adaexplore-bench-out)");
  bench->add_option("--memory", r.memory_path, "Skill memory for the prompts");
  AddProfileFlag(*bench, r.judging.profile);
  bench
      ->add_option("--expand-ratio", f.expand_ratio,
                   "c_e / c (default: 0.5 on kernelbench:level3, else 1.0, as the reference)")
      ->check(CLI::PositiveNumber);
  bench->add_option("--memory-min-count", r.memory_min_count, "Rules used from this count (3)");
  bench
      ->add_option("--baseline", f.baseline,
                   "Time each task's Model alone first: compile (eager and torch.compile, "
                   "default), eager, or none")
      ->check(CLI::IsMember({"compile", "eager", "none"}));
  bench->add_flag("--refresh-baselines", f.refresh_baselines,
                  "Time the baselines again instead of taking them from the cache");
  bench->add_flag("--json", f.json, "Print the report as one JSON object");
  bench->add_option("--html", f.html, "Also write the HTML report here");
  AddSearchSettingFlags(*bench, r);
  AddNatsFlags(*bench, r.judging.nats_url, r.judging.nats_queue, r.judging.nats_startup_timeout_s);
}

Result<int> RunBench(const BenchFlags& given) {
  BenchFlags f = given;
  RETURN_IF_ERROR(CheckOutputFile("--html", f.html));
  if (f.level != 0) {
    const std::string level = fmt::format("kernelbench:level{}", f.level);
    if (!f.suite.empty() && f.suite != level) {
      return InvalidArgument(
          fmt::format("--level {} and --suite {} name different suites", f.level, f.suite));
    }
    f.suite = level;
  }
  if (f.suite.empty()) {
    return InvalidArgument(
        "bench needs its tasks: --level N, --suite kernelbench:levelN or "
        "--suite FOLDER");
  }
  ASSIGN_OR_RETURN(std::string dir, ResolveSuite(f.suite, f.kernelbench_dir));
  ASSIGN_OR_RETURN(std::vector<std::string> paths,
                   SuiteTaskFiles(f.suite, dir, f.problems, f.limit));
  RunFlags search = f.search;
  ASSIGN_OR_RETURN(Config config, LoadJudgingConfig(search.judging));
  // --expand-ratio, else the config's [search] expand_ratio, else the suite's default.
  search.expand_ratio = !f.expand_ratio && config.search_file.contains("expand_ratio")
                            ? std::nullopt
                            : std::optional<double>(BenchExpandRatio(f));
  SuiteBenchOptions options{.dir = dir,
                            .baseline = f.baseline == "none"    ? BaselineMode::kNone
                                        : f.baseline == "eager" ? BaselineMode::kEager
                                                                : BaselineMode::kCompile,
                            .refresh_baselines = f.refresh_baselines,
                            .llm = config.llm,
                            .db_path = search.db_path,
                            .out_dir = search.out_dir};
  ASSIGN_OR_RETURN(options.base, RunSpecFromFlags(search, config));
  options.identity = SpecIdentity(options.base, config.profile);
  ASSIGN_OR_RETURN(options.tasks, ReadTasks(paths));
  for (const std::string& name : f.methods) {
    ASSIGN_OR_RETURN(const SearchMethod method, SearchMethodFlag(name));
    options.methods.push_back(method);
  }
  const StatusLine::Format format = f.json ? StatusLine::Format::kJson : StatusLine::Format::kText;
  StatusLine out(stderr, format);  // The bench's own messages; each run draws its own status.
  const TimePoint bench_start = Clock::now();
  ASSIGN_OR_RETURN(options.logger, MakeCommandLogger(config.log_level, f.json));
  // Every method's client must work before the workers start (a missing key, say).
  RETURN_IF_ERROR(
      StartLlmClient(config, search.record_path, options.base.model, options.logger).status());
  InterruptGuard guard;
  options.guard = &guard;
  // A database this bench creates is removed when it fails before recording anything.
  NewFileGuard created(search.db_path);
  ASSIGN_OR_RETURN(RunDb db, RunDb::Open(search.db_path));
  ASSIGN_OR_RETURN(const FileLock lock, LockRunDatabase(search.db_path, created));
  // One session, its workers started once, for the baselines and every method's run.
  ASSIGN_OR_RETURN(std::unique_ptr<SearchSession> session,
                   OpenSearchSession(config, std::move(db), search.db_path, options.logger, guard));
  created.Keep();  // The baselines and the runs go into it from here on.
  ASSIGN_OR_RETURN(
      const SuiteBenchOutcome outcome,
      RunSuiteBench(*session, options,
                    BenchObserver(out, dir, options.tasks.size(), format, bench_start)));
  std::vector<RunReport> reports;
  for (int64_t id : outcome.runs) {
    ASSIGN_OR_RETURN(std::vector<RunReport> one, LoadRunReports(f.search.db_path, id));
    reports.insert(reports.end(), one.begin(), one.end());
  }
  if (f.json) {
    std::printf("%s\n", JsonText(ReportJson(reports)).c_str());
  } else {
    (void)std::fputs(ReportMarkdown(reports).c_str(), stdout);
  }
  if (!f.html.empty()) {
    ASSIGN_OR_RETURN(std::string page,
                     HtmlReport(f.search.db_path, reports, "adaexplore bench: " + f.suite));
    RETURN_IF_ERROR(WriteFileAtomic(f.html, page));
  }
  return outcome.stopped ? 3 : 0;
}

}  // namespace adaexplore
