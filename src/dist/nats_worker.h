#pragma once

// The GPU host's side of scale-out: `adaexplore worker --nats URL`. It runs this host's
// evaluation workers (one per GPU, WorkerPool) and feeds them from the JetStream work queue of
// their device kind (adx.jobs.QUEUE), pulling only as many jobs as the workers have free slots.
// For each job it says "started" to the orchestrator, heartbeats (in progress) while the job
// runs, publishes the result and only then acks, so a host that dies loses nothing: the server
// redelivers the job to another host. A candidate that crashes its evaluation is a verdict (the
// pool's facts), published and acked like any other result. It answers hello requests with its
// workers' hello, and survives the server restarting (publishes and acks are retried).
//
// Example:
//   InterruptGuard guard;
//   ASSIGN_OR_RETURN(int code, RunNatsWorker({.url = url, .specs = specs}, guard));

#include <string>
#include <vector>

#include "core/log.h"
#include "core/result.h"
#include "sys/signals.h"
#include "workers/pool.h"

namespace adaexplore {

struct NatsWorkerOptions {
  std::string url;
  std::vector<WorkerSpec> specs;
  PoolOptions pool;
  std::string host;        // Names this host in results (default: the host name).
  double ack_wait_s = 30;  // Redelivery wait; heartbeats every third of it.
  int max_deliver = 5;     // Deliveries of one job before the server gives up on it.
  double startup_timeout_s = 300;
  Logger logger = NullLogger();
};

// Serves jobs until interrupted (SIGINT/SIGTERM): then the jobs still running are handed back
// to the queue (nak) for other hosts. Returns 0 after an interrupt; errors only when it could
// not start (no worker, no server).
Result<int> RunNatsWorker(NatsWorkerOptions options, const InterruptGuard& guard);

}  // namespace adaexplore
