#pragma once

// The suite bench (`adaexplore bench`) as a library: each task's own Model timed alone first
// (eager, and under torch.compile: eval/baseline.h), then one search run per method over every
// task of the suite, all in one search session (the workers start once) and one run database.
// A run is labelled by the suite, the method, the model, the step budget and the spec's identity
// (search/run_spec.h), so the same bench again resumes each unfinished run and leaves finished
// ones alone: a bench killed at any point is continued by repeating its command. The command
// shows the progress the observer reports and prints the report of the runs.
//
//   ASSIGN_OR_RETURN(SuiteBenchOutcome outcome, RunSuiteBench(*session, options, observer));

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/log.h"
#include "core/result.h"
#include "eval/baseline.h"
#include "llm/client.h"
#include "llm/options.h"
#include "search/run_spec.h"
#include "search/session.h"
#include "sys/signals.h"
#include "task/source_file.h"

namespace adaexplore {

enum class BaselineMode { kCompile, kEager, kNone };

struct SuiteBenchOptions {
  std::string dir;  // The suite's folder: its absolute path labels the runs.
  std::vector<SourceFile> tasks;
  std::vector<SearchMethod> methods;
  RunSpec base;          // Each method's spec: this, with its method and label.
  std::string identity;  // SpecIdentity(base, profile).
  BaselineMode baseline = BaselineMode::kCompile;
  bool refresh_baselines = false;
  // Each method's run has a client of its own, made from these, so its own LLM budget, as a
  // `run` of its own would.
  LlmOptions llm;
  std::string db_path;  // For the summaries: where the runs can be resumed from.
  std::string out_dir;  // Each method's best kernels go to OUT/<method>/.
  const InterruptGuard* guard = nullptr;
  Logger logger = NullLogger();
};

struct BenchMethod {
  size_t index = 0;  // From 1.
  size_t count = 0;
  std::string method;
  enum class Status { kNew, kResumed, kFinished } status = Status::kNew;  // kFinished: skipped.
  int64_t run = 0;  // The previous run (resumed, finished); 0 for a new one.
};

struct SuiteBenchObserver {
  std::function<void(size_t tasks, bool compile, const std::string& device)> on_baselines_start;
  std::function<void(size_t done, size_t total)> on_baselines_progress;
  // A task without its eager figure (left out) or without its torch.compile one.
  std::function<void(const Baseline&)> on_baseline_missing;
  // `failed`: no eager baseline (the task is not benched); `compile_failed`: an eager one but no
  // torch.compile baseline where one was asked for.
  std::function<void(size_t measured, size_t cached, size_t failed, size_t compile_failed)>
      on_baselines_done;
  std::function<void(const BenchMethod&)> on_method;
  // Runs (or resumes) one method's search in the session (the command draws its progress around
  // it); unset: the session's own Start or Resume with no observer.
  std::function<Result<RunOutcome>(SearchSession&, LlmClient&, std::optional<int64_t> resume,
                                   const RunSpec&, const std::vector<SourceFile>&)>
      run;
};

struct SuiteBenchOutcome {
  std::vector<int64_t> runs;  // One per method reached, in order.
  bool stopped = false;  // A run stopped early (interrupt, budget): the later ones did not run.
};

Result<SuiteBenchOutcome> RunSuiteBench(SearchSession& session, const SuiteBenchOptions& options,
                                        const SuiteBenchObserver& observer = {});

// The label of a method's run: a later bench with the same label is the same run.
std::string BenchRunLabel(const SuiteBenchOptions& options, const RunSpec& spec);

}  // namespace adaexplore
