#pragma once

// `adaexplore eval`'s use case: the candidates a request names, judged by the workers the
// configuration plans, with the files the user asked for written beside (each definition's
// FlashInfer Trace lines as its result comes, KernelBench's eval_results.json at the end).
// Nothing here prints: the caller shows what happens through EvaluateEvents, and decides its
// exit from the outcome.
//
//   ASSIGN_OR_RETURN(EvaluateOutcome outcome, Evaluate(config, request, events, logger, guard));
//   return outcome.Complete() ? 0 : 1;

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "app/eval_requests.h"
#include "config/config.h"
#include "core/log.h"
#include "eval/evaluator.h"
#include "sys/signals.h"

namespace adaexplore {

struct EvaluateRequest {
  RequestSources sources;
  bool refresh_cache = false;            // Evaluate again and overwrite cached results.
  std::string traces_path;               // FlashInfer Trace lines of definitions; empty: none.
  std::string kernelbench_results_path;  // KernelBench's eval_results.json; empty: none.
};

// What the caller is told, in this order; any may be empty.
struct EvaluateEvents {
  // The candidates read, before any worker starts: the problems without kernels and the
  // unreadable files (their verdicts) are known here.
  std::function<void(const CollectedRequests&)> collected;
  // The workers are up and about to judge `requests`.
  std::function<void(const Evaluator&, const std::vector<EvalRequest>&)> started;
  std::function<void(const std::string& job, const std::string& phase)> phase;  // A job's phase.
  Evaluator::WorkloadObserver workload;                         // A definition's workload judged.
  std::function<void(size_t index, const EvalResult&)> result;  // A candidate judged.
};

struct EvaluateOutcome {
  // The judged candidates in request order, then the unreadable files' verdicts.
  std::vector<EvalResult> results;
  size_t judged = 0;  // How many of `results` the workers judged (0: none could be read).
  std::vector<MissingProblem> missing;
  // Where the worker logs are kept when some candidate met a harness error; empty otherwise.
  std::string worker_logs;

  // Whether everything asked for was judged: no harness or task error, no unreadable file, no
  // problem without kernels.
  bool Complete() const;
};

// Reads, judges and writes as above. Errors: a missing task or no candidate at all, an output
// file that cannot be written, workers that do not start, an interrupt.
Result<EvaluateOutcome> Evaluate(Config& config, const EvaluateRequest& request,
                                 const EvaluateEvents& events, const Logger& logger,
                                 const InterruptGuard& guard);

}  // namespace adaexplore
