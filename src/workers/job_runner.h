#pragma once

// JobRunner: what the evaluator needs from whatever runs its jobs. Two kinds exist: WorkerPool
// (this host's workers, one poll loop; workers/pool.h) and NatsPool (jobs on a NATS JetStream work
// queue, served by `adaexplore worker --nats` on GPU hosts; dist/nats_pool.h). Both keep the same
// promise: each submitted job produces exactly one outcome, and Step never blocks past `until`.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "sys/signals.h"
#include "workers/protocol.h"

namespace adaexplore {

struct PoolJob {
  std::string id;
  nlohmann::json message;  // The "eval" message without id, timeout_s (the pool adds them).
  double timeout_s = 180;
  // A second measurement: run it on any worker but this one where another can take it.
  std::string avoid_worker;
};

struct PoolOutcome {
  std::string id;
  nlohmann::json facts;  // The worker's facts, or facts the pool made (crash, timeout, error).
  std::string worker;    // Label of the worker that produced it ("gpu0", "host-a/gpu1").
  int attempts = 1;
  // The hello of the worker that ran it: its GPU, software and ceilings. Empty when no worker
  // did (a job failed while queued) or the worker's host did not say.
  std::optional<WorkerHello> hello;
};

class JobRunner {
 public:
  virtual ~JobRunner() = default;

  virtual void Submit(PoolJob job) = 0;

  // One turn of the loop: wait until `until`, the first outcome, or a readable `wake_fds` entry
  // (the caller drains it). Cancelled when an interrupt signal arrived.
  virtual Result<std::vector<PoolOutcome>> Step(std::optional<TimePoint> until,
                                                const InterruptGuard* guard,
                                                const std::vector<int>& wake_fds = {}) = 0;

  virtual bool idle() const = 0;
  virtual size_t in_flight() const = 0;

  // The hellos of the workers that serve the jobs. The evaluator keys results by the first; a
  // result whose outcome names other software or another GPU is kept under its own key.
  virtual std::vector<WorkerHello> ready_workers() const = 0;

  virtual void Shutdown() = 0;
};

}  // namespace adaexplore
