#pragma once

// A JobRunner (workers/job_runner.h) for tests of what sits above the worker pool (the evaluator,
// the search session): it answers every job at once with the facts it was given, as a worker that
// said `ready` would, and counts the jobs. A baseline job gets a reference timing of 2 ms.

#include <poll.h>

#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "workers/job_runner.h"
#include "workers/protocol.h"
#include "sys/signals.h"

namespace adaexplore::test_runner {

// The hello of a worker on `gpu` with torch `torch`.
inline WorkerHello Hello(const std::string& gpu, const std::string& torch) {
  WorkerHello h;
  h.protocol = kProtocolVersion;
  h.torch = torch;
  h.triton = "3.6";
  h.device_kind = DeviceKind::kCuda;
  h.device_name = gpu;
  h.device = {{"kind", "cuda"}, {"name", gpu}};
  h.harness = "0123456789abcdef";
  return h;
}

// Answers every job with `facts`, as measured by `measured` when set (a worker of other software
// or another GPU than the one that said hello first). Counts the jobs in `*jobs`.
class ScriptedRunner : public JobRunner {
 public:
  ScriptedRunner(std::vector<WorkerHello> ready, std::optional<WorkerHello> measured, int* jobs,
                 nlohmann::json facts)
      : ready_(std::move(ready)),
        measured_(std::move(measured)),
        jobs_(jobs),
        facts_(std::move(facts)) {}

  void Submit(PoolJob job) override {
    ++*jobs_;
    if (options_seen_ != nullptr) {
      options_seen_->push_back(job.message["options"]);
    }
    const bool baseline = job.message["options"].value("baseline", false);
    const std::string task = job.message["task"].value("filename", "");
    const auto own = facts_by_task_.find(task);
    const nlohmann::json& workload = job.message["task"].value("workload", nlohmann::json());
    const auto own_workload = workload.is_object()
                                  ? facts_by_workload_.find(workload.value("uuid", ""))
                                  : facts_by_workload_.end();
    const bool other_sizes = !job.message["options"].value("sizes", nlohmann::json::object()).empty();
    const bool sanitize = !job.message["options"].value("sanitize", nlohmann::json::array()).empty();
    const bool size_sets =
        !job.message["options"].value("size_sets", nlohmann::json::array()).empty();
    nlohmann::json facts = baseline ? nlohmann::json{{"status", "ok"},
                                                     {"timing", {{"reference_ms", {2.0}}}}}
                           : sanitize && sanitizer_facts_ ? *sanitizer_facts_
                           : other_sizes && sizes_facts_ ? *sizes_facts_
                           : size_sets && size_sets_facts_ ? *size_sets_facts_
                           : own_workload != facts_by_workload_.end() ? own_workload->second
                           : own != facts_by_task_.end() ? own->second
                                                         : facts_;
    queue_.push_back(PoolOutcome{.id = job.id,
                                 .facts = std::move(facts),
                                 .worker = measured_ ? "host-b/gpu0" : "gpu0",
                                 .hello = measured_});
  }

  // With nothing queued, waits for a wake fd (an LLM reply) for up to 10 ms, as a pool would.
  // Cancelled once an interrupt was received, as the pool is.
  Result<std::vector<PoolOutcome>> Step(std::optional<TimePoint> /*until*/,
                                        const InterruptGuard* guard,
                                        const std::vector<int>& wake_fds) override {
    if (guard != nullptr && InterruptGuard::received() != 0) {
      return Cancelled("interrupted");
    }
    if (queue_.empty() && !wake_fds.empty()) {
      std::vector<pollfd> fds;
      for (int fd : wake_fds) {
        fds.push_back({.fd = fd, .events = POLLIN, .revents = 0});
      }
      (void)poll(fds.data(), fds.size(), kWaitMs);
    }
    std::vector<PoolOutcome> out(std::make_move_iterator(queue_.begin()),
                                 std::make_move_iterator(queue_.end()));
    queue_.clear();
    return out;
  }
  bool idle() const override { return queue_.empty(); }
  size_t in_flight() const override { return queue_.size(); }
  std::vector<WorkerHello> ready_workers() const override { return ready_; }
  void Shutdown() override {}

  // Every job's options are appended to `*seen` as it is submitted.
  void RecordOptionsIn(std::vector<nlohmann::json>* seen) { options_seen_ = seen; }

  // Jobs with a `sizes` option (checks at another size set, eval/size_checks.h) are answered
  // with `facts` instead.
  void SetSizesFacts(nlohmann::json facts) { sizes_facts_ = std::move(facts); }

  // Jobs with a `size_sets` option (the other sizes checked in the candidate's own job) are
  // answered with `facts` instead.
  void SetSizeSetsFacts(nlohmann::json facts) { size_sets_facts_ = std::move(facts); }

  // Jobs with a `sanitize` option (compute-sanitizer's runs, eval/sanitizer.h) are answered with
  // `facts` instead.
  void SetSanitizerFacts(nlohmann::json facts) { sanitizer_facts_ = std::move(facts); }

  // Jobs on the FlashInfer-Trace workload `uuid` are answered with `facts` instead.
  void SetWorkloadFacts(const std::string& uuid, nlohmann::json facts) {
    facts_by_workload_[uuid] = std::move(facts);
  }

  // Jobs of the task file `filename` ("relu.py") are answered with `facts` instead.
  void SetTaskFacts(const std::string& filename, nlohmann::json facts) {
    facts_by_task_[filename] = std::move(facts);
  }

 private:
  static constexpr int kWaitMs = 10;
  std::vector<WorkerHello> ready_;
  std::optional<WorkerHello> measured_;
  int* jobs_;
  nlohmann::json facts_;
  std::map<std::string, nlohmann::json> facts_by_task_;
  std::map<std::string, nlohmann::json> facts_by_workload_;
  std::optional<nlohmann::json> sizes_facts_;
  std::optional<nlohmann::json> size_sets_facts_;
  std::optional<nlohmann::json> sanitizer_facts_;
  std::vector<nlohmann::json>* options_seen_ = nullptr;
  std::deque<PoolOutcome> queue_;
};

}  // namespace adaexplore::test_runner
