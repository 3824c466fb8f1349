#pragma once

// NatsPool: the evaluator's jobs on a NATS JetStream work queue instead of this host's workers.
// Each job is published once to adx.jobs.QUEUE (message id = run and job id, so a repeat of the
// publish is dropped by the server); whichever `adaexplore worker --nats` host has a free GPU
// pulls it, says "started" on adx.progress.RUN, heartbeats while it runs and publishes the
// result to adx.results.RUN before acking the job. A job whose host dies is redelivered by the
// server to another host; a result for a job already finished (the first host came back, or an
// ack was lost) is ignored, so nothing is counted twice. A job that nobody finishes in time
// (its timeout, the margin and one redelivery wait after its last start) ends as a timeout.
//
// The connection reconnects by itself; publishes that fail while the server is away are retried
// every turn, and results wait in their stream until fetched.
//
// Example:
//   ASSIGN_OR_RETURN(auto pool, NatsPool::Connect({.url = url, .queue = "nvidia-h200"}, &guard));
//   ASSIGN_OR_RETURN(auto evaluator, Evaluator::Start(options, &guard, std::move(pool)));

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/log.h"
#include "dist/nats.h"
#include "workers/job_runner.h"

namespace adaexplore {

struct NatsPoolOptions {
  std::string url;
  std::string queue;  // Which workers: "nvidia-h200", "cpu" (nats::QueueName); empty: any.
  double startup_timeout_s = 300;  // For the first worker to answer hello.
  double ack_wait_s = 30;          // The workers' redelivery wait (for the deadline).
  double deadline_margin_s = 30;
  Logger logger = NullLogger();
  std::function<void(const std::string&, const std::string&)> on_progress;
};

class NatsPool final : public JobRunner {
 public:
  // Connects, creates the streams and waits until a worker of the queue answers hello.
  static Result<std::unique_ptr<NatsPool>> Connect(NatsPoolOptions options,
                                                   const InterruptGuard* guard);
  ~NatsPool() override;

  void Submit(PoolJob job) override;
  Result<std::vector<PoolOutcome>> Step(std::optional<TimePoint> until, const InterruptGuard* guard,
                                        const std::vector<int>& wake_fds = {}) override;
  bool idle() const override { return jobs_.empty(); }
  size_t in_flight() const override { return jobs_.size(); }
  std::vector<WorkerHello> ready_workers() const override { return {hello_}; }
  void Shutdown() override;

  const std::string& run() const { return run_; }

 private:
  struct Job {
    PoolJob job;
    std::string msg_id;
    bool published = false;
    std::optional<TimePoint> deadline;  // Set when a worker starts it.
    std::string worker;
    int starts = 0;
  };

  NatsPool(NatsPoolOptions options, nats::Connection nc, nats::PullConsumer results,
           nats::Subscription progress, std::string run, WorkerHello hello);
  void PublishPending();
  void ReadProgress();
  void ReadResults(double wait_s, std::vector<PoolOutcome>& done);
  void HandleDeadlines(std::vector<PoolOutcome>& done);
  // How long after a start `job` may go without a result.
  double OuterLimitSeconds(const Job& job) const;

  NatsPoolOptions options_;
  nats::Connection nc_;
  nats::PullConsumer results_;
  nats::Subscription progress_;
  std::string run_;
  WorkerHello hello_;
  std::map<std::string, Job> jobs_;  // By job id.
  int64_t published_ = 0;
  TimePoint last_start_;  // When a worker last started a job (or the pool was made).
  TimePoint last_warning_;
};

// The messages on the wire (JSON), shared with the worker side.
nlohmann::json JobEnvelope(const PoolJob& job, const std::string& run);
// A result carries the hello of the worker that measured it (its GPU, software and ceilings).
nlohmann::json ResultEnvelope(const std::string& id, const nlohmann::json& facts,
                              const std::string& worker, int delivered,
                              const std::optional<WorkerHello>& hello);

}  // namespace adaexplore
