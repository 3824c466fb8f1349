#pragma once

// Evaluator: the harness as one call. Given tasks and candidates, it answers from the result cache
// where it can, sends the rest to the worker pool, classifies the facts that come back and stores
// the results. Results are keyed by content (task, candidate, profile, device and software), so
// the same work is never done twice, in one run or across runs.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "core/log.h"
#include "eval/baseline.h"
#include "eval/profile.h"
#include "eval/size_variants.h"
#include "eval/verdict.h"
#include "store/result_cache.h"
#include "task/source_file.h"
#include "workers/pool.h"

namespace adaexplore {

struct EvalRequest {
  SourceFile task;
  SourceFile candidate;
  // A repeated measurement of the same candidate (0: the first). Part of the content key, so it
  // is measured again rather than answered from the cache; `avoid_worker` asks for another
  // worker than the one that measured it first.
  int measurement = 0;
  std::string avoid_worker;
};

// Whether a call answers from the result cache, or measures again and overwrites what is there.
enum class CacheUse { kRead, kRefresh };

struct EvaluatorOptions {
  EvalProfile profile;
  std::vector<WorkerSpec> workers;
  std::optional<std::string> cache_path;  // Unset: no cache.
  bool refresh_cache = false;             // Evaluate again and overwrite cached results.
  double startup_timeout_s = 300;
  PoolOptions pool;
  Logger logger = NullLogger();
};

// What a job does with its candidate.
struct EvaluateJob {  // Evaluates it: checks, times and traces it as the profile says.
  // The job holds the device to itself in every phase (a retry after running out of device
  // memory beside others).
  bool alone = false;
  // The task's other size sets, checked in the same job once the candidate is correct at its own
  // (its size_sets option; eval/size_checks.h).
  std::vector<SizeVariant> size_sets;
};
struct SizeCheckJob {  // Checks it at one of the task's other size sets (eval/size_checks.h).
  const SizeVariant* set = nullptr;
  bool alone = false;
};
struct SanitizerJob {};  // Runs compute-sanitizer's tools on it (eval/sanitizer.h).
using JobKind = std::variant<EvaluateJob, SizeCheckJob, SanitizerJob>;

class Evaluator {
 public:
  // Spawns the workers and waits until they are ready (or have failed: at least one must work).
  // With `runner` (a NatsPool, already connected and with a worker's hello), jobs go to it
  // instead and `options.workers` is not used.
  static Result<std::unique_ptr<Evaluator>> Start(EvaluatorOptions options,
                                                  const InterruptGuard* guard,
                                                  std::unique_ptr<JobRunner> runner = nullptr);

  // Evaluates every request. `on_result` (optional) sees each result as it completes; the
  // returned vector holds them in request order. Fails only when interrupted; every other problem
  // is a verdict (an unreadable cache is logged and the request evaluated).
  Result<std::vector<EvalResult>> Run(
      const std::vector<EvalRequest>& requests,
      const std::function<void(size_t, const EvalResult&)>& on_result, const InterruptGuard* guard);

  // The asynchronous form, for a caller with its own loop (the search). Submit queues a request
  // and returns its id (a cache hit is ready at once); Poll runs the pool until `until`, a
  // result, or a readable `wake_fds` entry, and returns the results that are ready. Every
  // submitted request yields exactly one result.
  uint64_t Submit(EvalRequest request);
  Result<std::vector<std::pair<uint64_t, EvalResult>>> Poll(std::optional<TimePoint> until,
                                                            const InterruptGuard* guard,
                                                            const std::vector<int>& wake_fds = {});
  // Runs compute-sanitizer (the profile's sanitizer_tools) on the candidate of `request`, judged
  // as `judged`; the id's result, from Poll, is `judged` with the checks added (eval/sanitizer.h).
  // The checks are cached under the candidate's key and the tools. A search calls it for its new
  // bests; with the profile's `sanitize` (eval --sanitize) every correct result gets them.
  uint64_t SubmitSanitizer(EvalRequest request, EvalResult judged);
  // Requests submitted and not yet answered (a task's workloads count once).
  size_t outstanding() const;

  // Times each task's own Model alone (eager, and torch.compile when `with_compile`) on the
  // workers, answering from the cache where it can (see eval/baseline.h) unless `cache_use` (or
  // the evaluator's refresh_cache) says to measure again; results in task order. Must be called
  // with no request outstanding. Fails only when interrupted: a task that cannot be timed gives
  // a Baseline with an error. `on_measured` (optional) is told how many of the tasks to measure
  // (those the cache did not answer) are done, after each.
  Result<std::vector<Baseline>> Baselines(
      const std::vector<SourceFile>& tasks, bool with_compile, CacheUse cache_use,
      const InterruptGuard* guard,
      const std::function<void(size_t done, size_t total)>& on_measured = {});

  // The content key of a request (exposed for tests and the run database).
  std::string CacheKey(const EvalRequest& request) const;

  // The "eval" message the workers get for `request` (without id and timeout), also used by
  // bench/eval_throughput to run the same job in a fresh process; `kind` says what it does.
  nlohmann::json JobMessage(const EvalRequest& request, const JobKind& kind = EvaluateJob{}) const;

  const std::vector<WorkerHello>& workers() const { return workers_; }

  // `observer` sees each workload's result of a task with several workloads as it completes
  // (before the task's combined result), with the workload's label (WorkloadLabel), its
  // position and the count.
  using WorkloadObserver = std::function<void(const EvalResult& part, const std::string& label,
                                              size_t index, size_t count)>;
  void ObserveWorkloads(WorkloadObserver observer) { on_workload_ = std::move(observer); }

 private:
  Evaluator(EvaluatorOptions options, std::unique_ptr<JobRunner> pool,
            std::optional<ResultCache> cache);
  // The classified result of `outcome`; Store caches it (a result that hit a limit under a key
  // that names the limits).
  EvalResult Finish(const EvalRequest& request, const std::string& key, const PoolOutcome& outcome);
  void Store(const nlohmann::json& facts, const EvalResult& result);
  // Every request waiting on `key` gets `result`.
  void DeliverAll(const std::string& key, const EvalResult& result);
  // Checks a correct result at the task's other size sets before it is stored and delivered.
  void StartSizeChecks(const EvalRequest& request, const std::string& key, EvalResult result,
                       std::vector<SizeVariant> variants);
  void StartWorkloadChecks(uint64_t group_id, const EvalRequest& request, EvalResult combined,
                           std::vector<SizeVariant> variants);
  void FinishSizeCheck(const std::string& key, size_t index, const PoolOutcome& outcome);
  // The sets a job for `request` checks itself: the task's other sizes once a job of its task
  // reported them (this run, or the cache), none where the profile checks no sizes or the key's
  // job ended at them before.
  std::vector<SizeVariant> InJobSizeSets(const EvalRequest& request, const std::string& key);
  // Keeps the sizes the task ran at (facts.task_sizes), here and in the cache.
  void LearnTaskSizes(const EvalRequest& request, const nlohmann::json& facts);
  // Keeps the sets whose reference the task's own check jobs made (`checks` passed or wrong).
  void LearnMadeSets(const EvalRequest& request, const std::vector<SizeCheck>& checks);
  // Stores what is known of the task of `task_key`: its sizes and the sets made.
  void StoreTaskSizes(const std::string& task_key);
  // Runs the sanitizer on request `id` (in requests_) before `judged` is delivered to it.
  void StartSanitizer(uint64_t id, EvalResult judged);
  void FinishSanitizer(const std::string& job_id, const PoolOutcome& outcome);
  // Where a candidate's sanitizer checks are cached: its first measurement's key and the tools.
  std::string SanitizerKey(const EvalRequest& request) const;
  std::string KeyFor(const EvalRequest& request, const std::string& device) const;
  // What every candidate of one task shares under this profile on these workers: the inputs'
  // seed (unless the profile fixes one) and so the reference outputs.
  std::string TaskKey(const EvalRequest& request) const;
  // Where a result that hit the time or memory limit is cached: `key` with the limits.
  std::string LimitsKey(const std::string& key) const;
  // The hello of the worker that produced `outcome` (the first worker's when it did not say);
  // warns once per other software. Null with no worker at all.
  const WorkerHello* MeasuredBy(const PoolOutcome& outcome);
  void Deliver(uint64_t id, EvalResult result);
  void SubmitAs(uint64_t id, EvalRequest request);

  EvaluatorOptions options_;
  std::unique_ptr<JobRunner> pool_;
  std::optional<ResultCache> cache_;
  std::vector<WorkerHello> workers_;
  // Asynchronous state: requests not yet answered, by id; ids waiting on each content key (equal
  // candidates are evaluated once); keys already retried alone after running out of memory.
  uint64_t next_id_ = 0;
  std::map<uint64_t, std::pair<EvalRequest, std::string>> requests_;
  std::map<std::string, std::vector<uint64_t>> waiting_;
  std::set<std::string> retried_alone_;
  std::set<std::string> warned_software_;
  std::vector<std::pair<uint64_t, EvalResult>> ready_;
  // A request for a task with several workloads, answered when every workload's is.
  struct Group {
    EvalRequest request;
    std::vector<std::optional<EvalResult>> parts;
    size_t done = 0;
  };
  std::map<uint64_t, Group> groups_;
  std::map<uint64_t, std::pair<uint64_t, size_t>> part_of_;  // Workload request -> group, index.
  WorkloadObserver on_workload_;
  // A correct result being checked at other size sets, by its content key: delivered to the
  // requests waiting on that key once every set's job is back.
  // A FlashInfer-Trace definition's combined result is checked at workloads its selection left
  // out (`group`: delivered to that request, not cached), one request per set.
  struct Sizing {
    EvalResult result;
    std::vector<SizeVariant> variants;
    std::vector<SizeCheck> checks;
    size_t done = 0;
    std::optional<uint64_t> group;
  };
  std::map<std::string, Sizing> sizing_;
  std::map<std::string, std::pair<std::string, size_t>> size_jobs_;  // Job id -> key, set.
  // The sizes each task ran at, by TaskKey: a later candidate's job checks the other sets itself
  // (size_sets) rather than one job per set. The sets each job in flight carries, by content
  // key; and the keys whose job ended while it checked them, whose sets get jobs of their own.
  std::map<std::string, std::map<std::string, int64_t>> task_sizes_;
  // The sets whose reference a check job of the task made, by TaskKey: a candidate's own job that
  // says the reference failed there forged it (eval/size_checks.h, ReadSizeSets).
  std::map<std::string, std::set<std::string>> made_sets_;
  std::map<std::string, std::vector<SizeVariant>> in_job_sets_;
  std::set<std::string> sets_apart_;
  // A result waiting for its sanitizer job, by the job's id.
  struct Sanitizing {
    uint64_t id = 0;
    EvalResult result;
  };
  std::map<std::string, Sanitizing> sanitizing_;
  std::set<uint64_t> sanitized_;  // Requests whose next delivery carries the sanitizer's checks.
  bool said_no_sanitizer_ = false;
};

}  // namespace adaexplore
