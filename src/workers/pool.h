#pragma once

// WorkerPool: every evaluation worker of a run, driven by one ppoll loop on the caller's thread.
// It hands jobs to workers with free slots, enforces an outer deadline per job (the worker has its
// own, shorter one), restarts a worker that died, and turns every way a job can end (including
// its worker dying under it twice) into an outcome with facts. It never blocks longer than asked
// and never loses a job: each submitted job produces exactly one outcome.
//
// Example:
//   WorkerPool pool(specs, {.logger = logger});
//   RETURN_IF_ERROR(pool.Start());
//   pool.Submit({.id = "j1", .message = job_json, .timeout_s = 180});
//   while (!pool.idle()) { ASSIGN_OR_RETURN(auto done, pool.Step(std::nullopt, &guard)); ... }

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/log.h"
#include "sys/signals.h"
#include "workers/job_runner.h"
#include "workers/worker.h"

namespace adaexplore {

struct PoolOptions {
  Logger logger = NullLogger();
  double deadline_margin_s = 30;  // Outer deadline = job timeout + this, from dispatch.
  int max_restarts_per_worker = 10;
  double restart_backoff_s = 1.0;  // Doubles per restart of the same worker, up to 30 s.
  // Called with (job id, phase) as jobs progress, and by the Evaluator with (job id, "done") when
  // a job's outcome comes back; may be empty.
  std::function<void(const std::string&, const std::string&)> on_progress;
};

class WorkerPool final : public JobRunner {
 public:
  WorkerPool(std::vector<WorkerSpec> specs, PoolOptions options);
  ~WorkerPool() override;
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Spawns every worker. Fails only if none could be spawned at all.
  Status Start();

  // Runs the loop until every worker is ready or failed (or `deadline`). Fails if none is ready.
  Status WaitReady(TimePoint deadline, const InterruptGuard* guard);

  void Submit(PoolJob job) override;

  // One turn of the loop: dispatch, wait for events until `until` or the first outcome, handle
  // deadlines and deaths. Returns the outcomes that finished (possibly none). Cancelled when an
  // interrupt signal arrived. `wake_fds` are watched too: one turning readable ends the wait (the
  // caller drains it), so other event sources (the LLM client) share this one poll.
  Result<std::vector<PoolOutcome>> Step(std::optional<TimePoint> until, const InterruptGuard* guard,
                                        const std::vector<int>& wake_fds = {}) override;

  bool idle() const override { return pending_.empty() && running_.empty(); }
  size_t in_flight() const override { return running_.size(); }
  // Evaluations the ready workers can run at once.
  int capacity() const;

  // The hellos of the workers that are ready now.
  std::vector<WorkerHello> ready_workers() const override;
  // Why workers failed (startup errors), for messages to the user.
  std::vector<std::string> failures() const;

  // Asks workers to stop, then kills whatever remains.
  void Shutdown() override;

 private:
  struct Slot {
    WorkerSpec spec;
    std::unique_ptr<Worker> worker;
    int restarts = 0;
    std::optional<TimePoint> restart_at;
    std::string last_failure;
  };
  struct Pending {
    PoolJob job;
    int attempts = 0;
    bool solo = false;       // After a worker died under it: run it alone to know who killed it.
    int harness_deaths = 0;  // Its worker died under it, not by its doing (see HandleDeadWorker).
  };
  struct Running {
    Pending pending;
    size_t slot = 0;
    TimePoint deadline;
    std::optional<WorkerHello> hello;  // Of the worker it was sent to.
    std::string phase = "queued";
  };

  void Dispatch();
  void HandleEvents(size_t slot, std::vector<PoolOutcome>& done);
  void HandleDeadWorker(size_t slot, std::vector<PoolOutcome>& done);
  void HandleDeadlines(std::vector<PoolOutcome>& done);
  void RestartDue();
  void FailEverythingIfNoWorkerLeft(std::vector<PoolOutcome>& done);
  size_t RunningOn(size_t slot) const;
  bool SoloRunningOn(size_t slot) const;
  std::optional<TimePoint> NextWakeup() const;
  PoolOutcome MakeOutcome(const Running& running, nlohmann::json facts) const;

  std::vector<Slot> slots_;
  PoolOptions options_;
  std::deque<Pending> pending_;
  std::map<std::string, Running> running_;
};

}  // namespace adaexplore
