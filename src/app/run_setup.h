#pragma once

// What every command that evaluates needs before it starts: the candidates and tasks to read,
// the workers to run (which GPUs, which Python, how many evaluations at once), and the limits
// that depend on the machine. Shared by `adaexplore eval`, the search commands (run, bench,
// adapt) and the benchmarks in bench/.

#include <functional>
#include <string>
#include <vector>

#include "app/eval_requests.h"
#include "config/config.h"
#include "core/log.h"
#include "eval/evaluator.h"
#include "search/session.h"
#include "store/run_db.h"
#include "sys/fs.h"
#include "sys/signals.h"

namespace adaexplore {

// The checkout the running binary belongs to (the folder holding python/adaexplore_worker).
std::string ProjectRoot();

// The worker's interpreter: the configured one, else $ADAEXPLORE_PYTHON, else the project's
// .venv, else python3.
std::string ResolvePython(const Config& config, const std::string& root);

// One worker per GPU of the plan (or one CPU worker), with scratch folders under `scratch`.
Result<std::vector<WorkerSpec>> PlanWorkers(const Config& config, const std::string& scratch,
                                            const Logger& logger);

// Plans the workers (scratch folders under `scratch`), fills in machine-dependent limits and
// starts the evaluator with the configured cache. On failure `scratch` is released (kept on disk:
// the error names worker logs in it). `on_progress` (optional) sees every job's phases, and
// "done" (see PoolOptions).
Result<std::unique_ptr<Evaluator>> StartEvaluator(
    Config& config, bool refresh_cache, const Logger& logger, TempDir& scratch,
    const InterruptGuard& guard,
    std::function<void(const std::string&, const std::string&)> on_progress = {});

// A search session (search/session.h) over `db` with the workers of `config`, started here
// (scratch folders in a new temporary folder, kept on disk when they fail to start). The workers
// judge by `config.profile` with its machine-dependent limits filled in (config is updated); new
// runs store it as configured, so a machine that resumes them chooses those limits again.
Result<std::unique_ptr<SearchSession>> OpenSearchSession(Config& config, RunDb db,
                                                         const std::string& db_path,
                                                         const Logger& logger,
                                                         const InterruptGuard& guard,
                                                         bool refresh_cache = false);

// A share of this machine's memory for one evaluation: 80% of RAM over all slots, clamped to
// [2 GiB, 64 GiB].
double DefaultMemoryLimitMb(const std::vector<WorkerSpec>& specs);

}  // namespace adaexplore
