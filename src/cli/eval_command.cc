#include "cli/eval_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "app/evaluate.h"
#include "app/result_format.h"
#include "app/run_setup.h"
#include "cli/eval_progress.h"
#include "cli/output_file.h"
#include "config/config.h"
#include "core/json_log.h"
#include "core/json_text.h"
#include "core/log.h"
#include "eval/evaluator.h"
#include "sys/fs.h"
#include "sys/signals.h"
#include "ui/status_line.h"

namespace adaexplore {
namespace {

// The --json line of a problem without kernels.
nlohmann::json MissingProblemJson(const MissingProblem& missing) {
  return {{"task", std::filesystem::path(missing.task).stem().string()},
          {"task_path", missing.task},
          {"verdict", nullptr},
          {"missing", true},
          {"reason", "no kernels (" + missing.looked_for + ")"}};
}

// With FlashInfer-Trace definitions in the batch, progress counts their workloads; on the CPU a
// note first says that each may take minutes, and how to pick fewer.
void CountWorkloads(const std::vector<EvalRequest>& requests, const WorkerHello& worker,
                    EvalProgress& progress) {
  size_t workloads = 0;
  size_t others = 0;
  size_t most = 0;
  for (const EvalRequest& r : requests) {
    const size_t n = r.task.workload ? 0 : r.task.workloads.size();
    workloads += n;
    others += n == 0;
    most = std::max(most, n);
  }
  if (workloads == 0) {
    return;
  }
  if (worker.device_kind == DeviceKind::kCpu) {
    progress.Note(fmt::format("{} workload(s) of FlashInfer-Trace definitions to judge in "
                              "Triton's interpreter on the CPU: large ones can take minutes each "
                              "(--workloads 2 judges the first two of each definition)",
                              workloads),
                  {{"event", "cpu_workloads"}, {"workloads", workloads}, {"most", most}});
  }
  progress.CountWorkloads(workloads, others);
}

}  // namespace

void AddEvalCommand(CLI::App& app, EvalFlags& f) {
  CLI::App* eval = app.add_subcommand(
      "eval", "Evaluate candidate kernels against a task: correctness, integrity, speed");
  eval->add_option("--task", f.task,
                   "Task file: KernelBench (.py with Model, get_inputs, get_init_inputs), "
                   "FlashInfer-Trace definition (.json) or TritonBench-G operator (.py)");
  eval->add_option("--kernel", f.kernels,
                   "Candidate file: ModelNew, a FlashInfer Solution (.json) or entry point `run`, "
                   "or TritonBench-G operator code (repeatable)");
  eval->add_option("--kernel-dir", f.kernel_dir, "Evaluate every .py file in this folder");
  eval->add_option("--tasks-dir", f.tasks_dir, "Batch form: folder of task files");
  eval->add_option("--kernels-dir", f.kernels_dir,
                   "Batch form: folder with one subfolder (or file) per task name");
  AddProblemFlags(eval, f.problems);
  eval->add_option("--workloads", f.workloads,
                   "FlashInfer-Trace definitions: the first N workloads, positions A-B (from 1), "
                   "or uuids and positions, comma-separated (default: all)");
  eval->add_option("--kernelbench-results", f.kernelbench_results_path,
                   "Also write the results as KernelBench's eval_results.json here");
  eval->add_option("--traces", f.traces_path,
                   "Also write FlashInfer-Trace definitions' results as FlashInfer Trace JSON "
                   "lines to this file (one per workload)");
  AddJudgingFlags(*eval, f);
  AddNatsFlags(*eval, f.judging.nats_url, f.judging.nats_queue, f.judging.nats_startup_timeout_s);
  eval->add_flag("--json", f.json, "One JSON object per candidate on stdout");
  eval->add_flag("-v,--verbose", f.verbose, "Show full error text for failed candidates");
  eval->add_option("--config", f.judging.config_path,
                   "TOML configuration (default ./adaexplore.toml)");
  eval->add_option("--log-level", f.judging.log_level, "trace, debug, info, warn (default), error");
}

Result<int> RunEval(const EvalFlags& flags) {
  ASSIGN_OR_RETURN(Config config, LoadJudgingConfig(flags.judging));
  ASSIGN_OR_RETURN(Logger logger, MakeCommandLogger(config.log_level, flags.json));
  RETURN_IF_ERROR(CheckOutputFile("--kernelbench-results", flags.kernelbench_results_path));
  RETURN_IF_ERROR(CheckOutputFile("--traces", flags.traces_path));
  ASSIGN_OR_RETURN(std::vector<std::string> problems, ProblemTaskFiles(flags.problems));
  const EvaluateRequest request{.sources = {.task = flags.task,
                                            .kernels = flags.kernels,
                                            .kernel_dir = flags.kernel_dir,
                                            .tasks_dir = flags.tasks_dir,
                                            .kernels_dir = flags.kernels_dir,
                                            .problems = problems,
                                            .workloads = flags.workloads},
                                .refresh_cache = flags.refresh,
                                .traces_path = flags.traces_path,
                                .kernelbench_results_path = flags.kernelbench_results_path};
  const Detail detail = flags.verbose ? Detail::kFull : Detail::kBrief;
  const StatusLine::Format format =
      flags.json ? StatusLine::Format::kJson : StatusLine::Format::kText;
  auto text = [&](const EvalResult& r) {
    return flags.json ? FormatJsonLine(r) : FormatHuman(r, detail);
  };
  std::optional<EvalProgress> progress;  // Outlives the evaluator that calls it.
  EvaluateEvents events;
  events.collected = [&](const CollectedRequests& collected) {
    // Before the evaluation, which may take long: what is not evaluated, and why.
    for (const MissingProblem& missing : collected.missing) {
      (void)std::fputs(flags.json ? (JsonText(MissingProblemJson(missing)) + "\n").c_str()
                                  : (missing.Line() + "\n").c_str(),
                       stdout);
    }
    for (const EvalResult& r : collected.unreadable) {
      (void)std::fputs(text(r).c_str(), stdout);
    }
    (void)std::fflush(stdout);
    if (!collected.requests.empty()) {
      progress.emplace(collected.requests.size(), Clock::now(), format);
    }
  };
  events.started = [&](const Evaluator& evaluator, const std::vector<EvalRequest>& requests) {
    if (!flags.json) {
      const WorkerHello& w = evaluator.workers().front();
      (void)std::fprintf(stderr,
                         "evaluating %zu candidate(s) on %s (torch %s, triton %s), profile %s\n",
                         requests.size(), w.device_name.c_str(), w.torch.c_str(), w.triton.c_str(),
                         config.profile.name.c_str());
    }
    CountWorkloads(requests, evaluator.workers().front(), *progress);
  };
  events.phase = [&](const std::string& job, const std::string& phase) {
    progress->OnPhase(job, phase);
  };
  events.workload = [&](const EvalResult& part, const std::string& label, size_t index,
                        size_t count) { progress->OnWorkload(part, label, index, count); };
  events.result = [&](size_t /*index*/, const EvalResult& r) {
    progress->OnResult(r, stdout, text(r));
  };
  InterruptGuard guard;
  ASSIGN_OR_RETURN(const EvaluateOutcome outcome, Evaluate(config, request, events, logger, guard));
  if (progress) {
    progress->Finish();
  }
  const std::vector<EvalResult>& all = outcome.results;  // With the unreadable files' verdicts.
  if (outcome.judged == 0) {                             // Every candidate was unreadable.
    if (!flags.json && all.size() > 1) {
      (void)std::fputs(FormatSummary(all).c_str(), stdout);
    }
    return 1;
  }
  if (!flags.json && (all.size() > 1 || !outcome.missing.empty())) {
    (void)std::fputs(FormatSummary(all).c_str(), stdout);
    if (!outcome.missing.empty()) {
      std::string names;
      for (const MissingProblem& m : outcome.missing) {
        names += (names.empty() ? "" : ", ") + std::filesystem::path(m.task).stem().string();
      }
      (void)std::fprintf(stdout, "%zu problem(s) had no kernels: %s\n", outcome.missing.size(),
                         names.c_str());
    }
  }
  if (!outcome.worker_logs.empty()) {
    StatusLine(stderr, format)
        .Message("adaexplore: some candidates could not be evaluated; worker logs are in " +
                     outcome.worker_logs,
                 {{"event", "harness_errors"}, {"worker_logs", outcome.worker_logs}});
  }
  // Exit 1 when something asked for was not judged: a harness or task error, an unreadable
  // candidate file, or a problem with no kernels.
  return outcome.Complete() ? 0 : 1;
}

}  // namespace adaexplore
