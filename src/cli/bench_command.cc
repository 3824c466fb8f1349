#include "cli/bench_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "cli/devices.h"
#include "cli/run_setup.h"
#include "cli/search_progress.h"
#include "config/config.h"
#include "core/clock.h"
#include "core/json_log.h"
#include "core/json_text.h"
#include "eval/baseline.h"
#include "report/html_report.h"
#include "report/run_report.h"
#include "store/run_db.h"
#include "sys/fs.h"
#include "sys/new_file_guard.h"
#include "sys/signals.h"
#include "task/problems.h"
#include "task/source_file.h"
#include "ui/progress_clock.h"
#include "ui/status_line.h"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

// KernelBench files sort by problem number ("2_..." before "10_..."), then by name.
bool ByProblem(const std::string& a, const std::string& b) {
  const std::string na = fs::path(a).filename().string(), nb = fs::path(b).filename().string();
  const int pa = std::atoi(na.c_str()), pb = std::atoi(nb.c_str());
  return pa != pb ? pa < pb : na < nb;
}

// Times every task's own Model once (eager, and torch.compile unless the mode is "eager") on the
// bench's workers, answered from the result cache where it can, and records the figures in the
// bench's database for the report. A task that cannot be timed is reported and left out.
Status MeasureBaselines(const BenchFlags& f, SearchSession& session,
                        const std::vector<SourceFile>& tasks, const InterruptGuard& guard,
                        StatusLine& out) {
  const bool with_compile = f.baseline == "compile";
  Evaluator& evaluator = session.evaluator();
  out.Message(fmt::format("bench: timing {} task(s) alone (eager{}) on {}", tasks.size(),
                          with_compile ? " and torch.compile" : "",
                          evaluator.workers().front().device_name),
              {{"event", "baselines_start"}, {"tasks", tasks.size()}, {"compile", with_compile}});
  const TimePoint start = Clock::now();
  ASSIGN_OR_RETURN(
      std::vector<Baseline> baselines,
      evaluator.Baselines(
          tasks, with_compile, f.refresh_baselines ? CacheUse::kRefresh : CacheUse::kRead, &guard,
          [&](size_t done, size_t total) {
            const Duration elapsed = Clock::now() - start;
            nlohmann::json fields = {
                {"command", "bench"}, {"phase", "baselines"}, {"done", done}, {"total", total}};
            fields.update(ProgressClockJson(done, total, elapsed));
            out.SetStatus(fmt::format("bench: baselines {}/{} timed · {}", done, total,
                                      ProgressClock(done, total, elapsed)),
                          std::move(fields));
          }));
  out.SetStatus("");
  int cached = 0, failed = 0;
  for (const Baseline& b : baselines) {
    cached += b.cached;
    if (!b.eager) {
      ++failed;
      out.Message(fmt::format("bench: {}: no baseline: {}", b.task, b.error),
                  {{"event", "baseline_failed"}, {"task", b.task}, {"error", b.error}});
      continue;
    }
    if (with_compile && !b.compiled) {
      out.Message(fmt::format("bench: {}: no torch.compile baseline{}{}", b.task,
                              b.notes.empty() ? "" : ": ", b.notes.empty() ? "" : b.notes.front()),
                  {{"event", "compile_baseline_failed"}, {"task", b.task}, {"notes", b.notes}});
    }
    RETURN_IF_ERROR(session.db().RecordBaseline(ToJson(b)));
  }
  const size_t measured =
      baselines.size() - static_cast<size_t>(cached) - static_cast<size_t>(failed);
  out.Message(fmt::format("bench: baselines: {} measured, {} from the cache, {} failed", measured,
                          cached, failed),
              {{"event", "baselines_done"},
               {"measured", measured},
               {"cached", cached},
               {"failed", failed},
               {"elapsed_s", ProgressClockJson(1, 1, Clock::now() - start)["elapsed_s"]}});
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

double BenchExpandRatio(const BenchFlags& f) {
  if (f.expand_ratio) {
    return *f.expand_ratio;
  }
  return f.suite == "kernelbench:level3" ? 0.5 : 1.0;  // c_e = c x 0.5 on Level 3 (DESIGN.md).
}

Result<std::string> ResolveSuite(const std::string& suite, const std::string& kernelbench_dir) {
  constexpr std::string_view kPrefix = "kernelbench:";
  if (suite.rfind(kPrefix, 0) != 0) {
    if (!fs::is_directory(suite)) {
      return NotFound("no suite folder " + suite);
    }
    return suite;
  }
  const std::string level = suite.substr(kPrefix.size());
  std::string root = kernelbench_dir;
  if (root.empty()) {
    const char* env = std::getenv("KERNELBENCH_DIR");
    root = env != nullptr ? env : "";
  }
  if (root.empty()) {
    const Result<std::string> data = DefaultSuiteDir(kKernelBenchSuite);
    if (!data.ok() || !fs::is_directory(*data)) {
      return InvalidArgument(fmt::format(
          "{} needs a KernelBench checkout: pass --kernelbench DIR, or set KERNELBENCH_DIR or "
          "{} ({})",
          suite, kDataDirVariable, data.ok() ? "no " + *data + " either" : "neither is set"));
    }
    root = *data;
  }
  for (const fs::path& dir : {fs::path(root) / level, fs::path(root) / "KernelBench" / level}) {
    if (fs::is_directory(dir)) {
      return dir.string();
    }
  }
  return NotFound(fmt::format("no {} folder in {} (nor in {}/KernelBench)", level, root, root));
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
  bench
      ->add_option("--method", f.methods,
                   "adaexplore, ps, ir, irl, irb, irle (comma-separated: several runs)")
      ->delimiter(',');
  RunFlags& r = f.search;
  bench->add_option("--llm", r.model, "provider:model (openai:..., anthropic:..., replay:FILE)");
  bench->add_option("--steps", r.steps, "Steps per task (50)")->check(CLI::PositiveNumber);
  bench->add_option("--db", r.db_path, "Run database (adaexplore-bench.sqlite)");
  bench->add_option("--out", r.out_dir, "Best kernels, per method (adaexplore-bench-out)");
  bench->add_option("--memory", r.memory_path, "Skill memory for the prompts");
  bench->add_option("--profile", r.profile, "Evaluation profile: strict (default) or paper");
  bench
      ->add_option("--expand-ratio", f.expand_ratio,
                   "c_e / c (default: 0.5 on kernelbench:level3, else 1.0, as the reference)")
      ->check(CLI::PositiveNumber);
  bench->add_flag("--no-reviser", r.no_reviser, "Small steps without the reviser call");
  bench->add_option("--memory-min-count", r.memory_min_count, "Rules used from this count (3)");
  bench->add_option("--reasoning-effort", r.reasoning_effort, "minimal, low, medium or high");
  bench->add_option("--max-output-tokens", r.max_output_tokens, "Output limit per LLM call");
  bench->add_option("--language", r.language, "triton (default) or cuda");
  bench->add_option("--seed", r.seed, "Seed of the searches (0)");
  bench
      ->add_option("--baseline", f.baseline,
                   "Time each task's Model alone first: compile (eager and torch.compile, "
                   "default), eager, or none")
      ->check(CLI::IsMember({"compile", "eager", "none"}));
  bench->add_flag("--refresh-baselines", f.refresh_baselines,
                  "Time the baselines again instead of taking them from the cache");
  bench->add_flag("--json", f.json, "Print the report as one JSON object");
  bench->add_option("--html", f.html, "Also write the HTML report here");
  bench->add_option("--device", r.device, "auto (default), cuda or cpu");
  bench->add_option("--gpus", r.gpus, "GPU indices to use (default: all visible)")->delimiter(',');
  bench->add_option("--slots", r.slots, "Evaluations per device at once (default 2 per GPU)")
      ->check(CLI::Range(1, kMaxSlots));
  bench->add_option("--python", r.python, "Python interpreter with torch and triton");
  AddSettingFlags(*bench, EvalSettingTable(), r.eval_settings);
  bench->add_flag("--no-cache", r.no_cache, "Neither read nor write the result cache");
  AddNatsFlags(*bench, r.nats_url, r.nats_queue, r.nats_startup_timeout_s);
  bench->add_flag("--confirm-best", r.confirm_best,
                  "Measure a new best again on another worker before accepting it");
  bench->add_option("--config", r.config_path, "TOML configuration (default ./adaexplore.toml)");
  bench->add_option("--log-level", r.log_level, "trace, debug, info, warn (default), error");
}

Result<int> RunBench(const BenchFlags& given) {
  BenchFlags f = given;
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
  ASSIGN_OR_RETURN(std::vector<std::string> paths, ListPythonFiles(dir));
  std::sort(paths.begin(), paths.end(), ByProblem);
  if (!f.problems.empty()) {
    ASSIGN_OR_RETURN(std::vector<int> ids, ParseProblemIds(f.problems));
    std::vector<std::string> chosen;
    for (int id : ids) {
      auto it = std::find_if(paths.begin(), paths.end(), [&](const std::string& path) {
        const std::string name = fs::path(path).filename().string();
        return name.starts_with(std::to_string(id) + "_");
      });
      if (it == paths.end()) {
        return InvalidArgument(
            fmt::format("{} has no problem {} (no {}_*.py in {})", f.suite, id, id, dir));
      }
      chosen.push_back(*it);
    }
    paths = std::move(chosen);
  }
  if (f.limit && paths.size() > static_cast<size_t>(*f.limit)) {
    paths.resize(static_cast<size_t>(*f.limit));
  }
  if (paths.empty()) {
    return InvalidArgument("no task files in " + dir);
  }
  RunFlags search = f.search;
  ASSIGN_OR_RETURN(Config config, LoadRunConfig(search));
  // --expand-ratio, else the config's [search] expand_ratio, else the suite's default.
  search.expand_ratio = !f.expand_ratio && config.search_file.contains("expand_ratio")
                            ? std::nullopt
                            : std::optional<double>(BenchExpandRatio(f));
  ASSIGN_OR_RETURN(RunSpec base, RunSpecFromFlags(search, config));
  const std::string settings = SpecIdentity(base, config.profile);
  ASSIGN_OR_RETURN(std::vector<SourceFile> tasks, ReadTasks(paths));
  std::vector<SearchMethod> methods;
  for (const std::string& name : f.methods) {
    ASSIGN_OR_RETURN(const SearchMethod method, SearchMethodFlag(name));
    methods.push_back(method);
  }
  const StatusLine::Format format = f.json ? StatusLine::Format::kJson : StatusLine::Format::kText;
  StatusLine out(stderr, format);  // The bench's own messages; each run draws its own status.
  const TimePoint bench_start = Clock::now();
  ASSIGN_OR_RETURN(Logger logger, MakeCommandLogger(config.log_level, f.json));
  // Every method's client must work before the workers start (a missing key, say).
  RETURN_IF_ERROR(StartLlmClient(config, search, base.model, logger).status());
  InterruptGuard guard;
  // A database this bench creates is removed when it fails before recording anything.
  NewFileGuard created(search.db_path);
  ASSIGN_OR_RETURN(RunDb db, RunDb::Open(search.db_path));
  // One session, its workers started once, for the baselines and every method's run.
  ASSIGN_OR_RETURN(std::unique_ptr<SearchSession> session,
                   OpenSearchSession(config, std::move(db), search.db_path, logger, guard));
  created.Keep();  // The baselines and the runs go into it from here on.
  if (f.baseline != "none") {
    RETURN_IF_ERROR(MeasureBaselines(f, *session, tasks, guard, out));
  }
  std::vector<int64_t> run_ids;
  int exit_code = 0;
  for (size_t index = 0; index < methods.size(); ++index) {
    RunSpec spec = base;
    spec.method = methods[index];
    const std::string method(SearchMethodName(spec.method));
    const nlohmann::json event = {{"event", "bench_method"},
                                  {"index", index + 1},
                                  {"methods", methods.size()},
                                  {"method", method}};
    spec.label = fmt::format("bench {} | {} | {} | {} steps | {} tasks | settings {}",
                             fs::absolute(dir).string(), method, spec.model, spec.steps,
                             tasks.size(), settings);
    // The same bench again: resume an unfinished run, leave a finished one alone.
    ASSIGN_OR_RETURN(std::optional<RunInfo> previous, PreviousRun(session->db(), spec.label));
    if (previous && previous->status == WorkStatus::kFinished) {
      nlohmann::json finished = event;
      finished["run"] = previous->id;
      finished["status"] = "finished";
      out.Message(fmt::format("bench: {} ({}/{}): run {} already finished", method, index + 1,
                              methods.size(), previous->id),
                  std::move(finished));
      run_ids.push_back(previous->id);
      continue;
    }
    nlohmann::json starting = event;
    starting["status"] = previous ? "resumed" : "new";
    starting.update(ProgressClockJson(index, methods.size(), Clock::now() - bench_start));
    out.Message(
        fmt::format("bench: {} ({}/{}) on {} task(s) of {}{} · bench so far {}", method, index + 1,
                    methods.size(), tasks.size(), dir, previous ? " (resumed)" : "",
                    ProgressClock(index, methods.size(), Clock::now() - bench_start)),
        std::move(starting));
    // Each method's run has its own client, so its own LLM budget, as a `run` of its own would.
    ASSIGN_OR_RETURN(std::unique_ptr<LlmClient> llm,
                     StartLlmClient(config, search, spec.model, logger));
    ASSIGN_OR_RETURN(const RunOutcome outcome,
                     RunWithProgress(*session, *llm,
                                     previous ? std::optional<int64_t>(previous->id) : std::nullopt,
                                     spec, tasks, format));
    ASSIGN_OR_RETURN(const nlohmann::json summary,
                     RunSummaryJson(outcome, session->db(), *llm, search.db_path));
    RETURN_IF_ERROR(WriteRunOutput(outcome, summary, f.search.out_dir + "/" + method));
    run_ids.push_back(outcome.run_id);
    if (outcome.stopped) {  // Stopped (interrupt, budget): report what there is, then stop.
      exit_code = 3;
      break;
    }
  }
  std::vector<RunReport> reports;
  for (int64_t id : run_ids) {
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
  return exit_code;
}

}  // namespace adaexplore
