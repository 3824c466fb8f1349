#include "eval/evaluator.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <map>
#include <set>

#include "core/hash.h"
#include "core/json_text.h"
#include "core/nonce.h"
#include "eval/classify.h"
#include "eval/sanitizer.h"
#include "eval/size_checks.h"
#include "eval/workloads.h"
#include "workers/facts.h"

namespace adaexplore {
namespace {

// A candidate that is a JSON file where the task's kind takes those (a FlashInfer Solution) keeps
// its .json name in the worker's folder; any other candidate is .py.
std::string CandidateSuffix(const EvalRequest& request) {
  return KindInfo(request.task.kind).json_candidates && request.candidate.path.ends_with(".json")
             ? ".json"
             : ".py";
}

constexpr size_t kJobIdLength = 16;  // Of the cache key: the pool's job id.
constexpr size_t kNonceBytes = 16;

// The pool's id of the job that checks the candidate of `key` at the size set `set`.
std::string SizeJobId(const std::string& key, const std::string& set) {
  return Sha256Builder().Add(key).Add("sizes " + set).Finish().substr(0, kJobIdLength);
}

// Where the sizes a task ran at under a profile (its TaskKey) are cached.
std::string TaskSizesKey(const std::string& task_key) {
  return Sha256Builder().Add("adaexplore-task-sizes-v1").Add(task_key).Finish();
}

// A result that only says the candidate hit a limit (the time limit, or the host-memory limit
// that killed it) holds for that limit, not for others: it is cached under a key that names them.
bool HitALimit(const nlohmann::json& facts, const EvalResult& result) {
  return result.verdict == Verdict::kTimeout || (facts.is_object() && StatusOf(facts).ok() &&
                                                 *StatusOf(facts) == FactStatus::kMemoryLimit);
}

// The worker found compute-sanitizer (its hello's {path, version}).
bool HasSanitizer(const WorkerHello& w) {
  return w.compute_sanitizer.is_object() && w.compute_sanitizer.contains("path");
}

bool RanOutOfMemory(const nlohmann::json& facts) {
  if (!facts.is_object() || !facts.contains("error") || !facts["error"].is_object()) {
    return false;
  }
  const nlohmann::json& error = facts["error"];
  return error.value("out_of_memory", false) &&
         error.value("cuda_error", nlohmann::json()).is_null();
}

}  // namespace

Evaluator::Evaluator(EvaluatorOptions options, std::unique_ptr<JobRunner> pool,
                     std::optional<ResultCache> cache)
    : options_(std::move(options)), pool_(std::move(pool)), cache_(std::move(cache)) {
  workers_ = pool_->ready_workers();
  for (const WorkerHello& w : workers_) {
    if (w.Fingerprint() != workers_.front().Fingerprint()) {
      options_.logger->warn(
          "workers differ: {} beside {}; each result is keyed, bounded and labelled by the "
          "worker that measured it, but speedups from different GPUs or software do not compare",
          w.Fingerprint(), workers_.front().Fingerprint());
      break;
    }
  }
}

Result<std::unique_ptr<Evaluator>> Evaluator::Start(EvaluatorOptions options,
                                                    const InterruptGuard* guard,
                                                    std::unique_ptr<JobRunner> runner) {
  std::optional<ResultCache> cache;
  if (options.cache_path) {
    Result<ResultCache> opened = ResultCache::Open(*options.cache_path);
    if (!opened.ok()) {
      return opened.status().WithContext("opening the result cache");
    }
    cache.emplace(std::move(*opened));
  }
  if (runner) {
    if (runner->ready_workers().empty()) {
      return Unavailable("no worker has said hello: nothing knows the device");
    }
    return std::unique_ptr<Evaluator>(
        new Evaluator(std::move(options), std::move(runner), std::move(cache)));
  }
  options.pool.logger = options.logger;
  auto pool = std::make_unique<WorkerPool>(options.workers, options.pool);
  RETURN_IF_ERROR(pool->Start());
  RETURN_IF_ERROR(pool->WaitReady(Clock::now() + Seconds(options.startup_timeout_s), guard));
  return std::unique_ptr<Evaluator>(
      new Evaluator(std::move(options), std::move(pool), std::move(cache)));
}

std::string Evaluator::CacheKey(const EvalRequest& request) const {
  return KeyFor(request, workers_.empty() ? "none" : workers_.front().Fingerprint());
}

std::string Evaluator::KeyFor(const EvalRequest& request, const std::string& device) const {
  return Sha256Builder()
      .Add("adaexplore-eval-v2")
      .Add(request.task.sha256)
      .Add(request.candidate.sha256)
      .Add(JsonText(options_.profile.Fingerprint()))
      .Add(device)
      .Add(request.measurement > 0 ? fmt::format("measurement {}", request.measurement) : "")
      .Finish();
}

std::string Evaluator::TaskKey(const EvalRequest& request) const {
  return Sha256Builder()
      .Add("adaexplore-task-v1")
      .Add(request.task.sha256)
      .Add(JsonText(options_.profile.Fingerprint()))
      .Add(workers_.empty() ? "none" : workers_.front().Fingerprint())
      .Add(request.measurement > 0 ? fmt::format("measurement {}", request.measurement) : "")
      .Finish();
}

std::string Evaluator::LimitsKey(const std::string& key) const {
  return Sha256Builder()
      .Add(key)
      .Add(fmt::format("timeout_s {} memory_limit_mb {}", options_.profile.timeout_s,
                       options_.profile.memory_limit_mb))
      .Finish();
}

nlohmann::json Evaluator::JobMessage(const EvalRequest& request, const JobKind& kind) const {
  const EvalProfile& p = options_.profile;
  const std::string key = CacheKey(request);
  const auto* sizes = std::get_if<SizeCheckJob>(&kind);
  EvalJob job{
      .id = sizes == nullptr ? key.substr(0, kJobIdLength) : SizeJobId(key, sizes->set->name),
      .nonce = RandomHex(kNonceBytes),
      .task = ToTaskText(request.task),
      .candidate = {request.candidate.name + CandidateSuffix(request), request.candidate.source},
      .options = p.ToJobOptions(workers_.empty() ? DeviceKind::kCpu : workers_.front().device_kind,
                                request.task.kind),
      .timeout_s = p.timeout_s,
      .memory_limit_mb = p.memory_limit_mb};
  if (sizes != nullptr) {
    AsSizeCheck(*sizes->set, job.options);  // Before the references' key: theirs are the set's.
  }
  if (const auto* evaluate = std::get_if<EvaluateJob>(&kind); evaluate != nullptr) {
    // Before the references' key too: the sets' references are made and kept with the task's.
    job.options.size_sets = AsSizeSets(evaluate->size_sets, job.options.trials);
  }
  if (std::holds_alternative<SanitizerJob>(kind)) {
    AsSanitizerRun(p, job.options);
    job.timeout_s = SanitizerJobTimeout(p);
  }
  // Derived seeds are the task's: every candidate of a task gets the same inputs (as under the
  // release's fixed seed), so they share one set of reference outputs, which the worker makes
  // once and keeps under the reference key (the task, every option, the worker's software).
  const std::string task_key = TaskKey(request);
  job.options.seed = p.seed ? *p.seed : std::stoull(task_key.substr(0, 12), nullptr, 16);
  job.reference_key = Sha256Builder()
                          .Add("adaexplore-references-v1")
                          .Add(task_key)
                          .Add(JsonText(ToJson(job.options)))
                          .Finish();
  // After the key: a retry alone has the same references.
  job.options.exclusive = std::visit(
      [](const auto& k) {
        if constexpr (requires { k.alone; }) {
          return k.alone;
        } else {
          return false;
        }
      },
      kind);
  return ToJson(job);
}

const WorkerHello* Evaluator::MeasuredBy(const PoolOutcome& outcome) {
  if (!outcome.hello) {
    return workers_.empty() ? nullptr : &workers_.front();
  }
  const WorkerHello& hello = *outcome.hello;
  if (!workers_.empty() && hello.Fingerprint() != workers_.front().Fingerprint() &&
      warned_software_.insert(hello.Fingerprint()).second) {
    options_.logger->warn(
        "{} measures with {}, unlike the first worker ({}): its results are "
        "cached under their own software and bounded by its own ceilings",
        outcome.worker, hello.Fingerprint(), workers_.front().Fingerprint());
  }
  return &hello;
}

EvalResult Evaluator::Finish(const EvalRequest& request, const std::string& key,
                             const PoolOutcome& outcome) {
  EvalResult result;
  result.task = request.task.name;
  result.task_path = request.task.path;
  result.kernel_path = request.candidate.path;
  // The result belongs to the worker that measured it: its GPU names the result, its ceilings
  // bound the speedup and its software keys the cache (another worker's key would let a later
  // run take this figure for one measured on that worker's GPU and software).
  const WorkerHello* measured = MeasuredBy(outcome);
  result.cache_key = measured == nullptr || workers_.empty() ||
                             measured->Fingerprint() == workers_.front().Fingerprint()
                         ? key
                         : KeyFor(request, measured->Fingerprint());
  result.device = measured == nullptr ? "" : measured->device_name;
  result.worker = outcome.worker;
  Classify(outcome.facts, options_.profile, result,
           measured == nullptr ? nullptr : &measured->ceilings);
  return result;
}

void Evaluator::Store(const nlohmann::json& facts, const EvalResult& result) {
  if (!cache_ || result.verdict == Verdict::kError) {
    return;
  }
  const std::string stored_key =
      HitALimit(facts, result) ? LimitsKey(result.cache_key) : result.cache_key;
  if (Status s =
          cache_->Store(stored_key, std::string(VerdictName(result.verdict)), ToJson(result));
      !s.ok()) {
    options_.logger->warn("could not store a result in the cache: {}", s.message());
  }
}

void Evaluator::DeliverAll(const std::string& key, const EvalResult& result) {
  auto it = waiting_.find(key);
  CHECK(it != waiting_.end());  // A key's result is delivered once.
  const std::vector<uint64_t> ids = std::move(it->second);
  waiting_.erase(it);
  for (uint64_t id : ids) {
    Deliver(id, result);
  }
}

void Evaluator::StartSizeChecks(const EvalRequest& request, const std::string& key,
                                EvalResult result, std::vector<SizeVariant> variants) {
  Sizing& sizing = sizing_[key];
  sizing.result = std::move(result);
  sizing.variants = std::move(variants);
  sizing.checks.resize(sizing.variants.size());
  for (size_t i = 0; i < sizing.variants.size(); ++i) {
    const std::string id = SizeJobId(key, sizing.variants[i].name);
    size_jobs_[id] = {key, i};
    pool_->Submit(
        PoolJob{.id = id,
                .message = JobMessage(request, SizeCheckJob{.set = &sizing.variants[i],
                                                            .alone = retried_alone_.contains(key)}),
                .timeout_s = options_.profile.timeout_s});
  }
}

void Evaluator::StartWorkloadChecks(uint64_t group_id, const EvalRequest& request,
                                    EvalResult combined, std::vector<SizeVariant> variants) {
  const std::string key = fmt::format("workload checks of request {}", group_id);
  Sizing& sizing = sizing_[key];
  sizing.group = group_id;
  sizing.result = std::move(combined);
  sizing.variants = std::move(variants);
  sizing.checks.resize(sizing.variants.size());
  for (size_t i = 0; i < sizing.variants.size(); ++i) {
    // The workload is the set: its own task, not the task resized (the set's sizes only name it).
    EvalRequest part = request;
    part.task = WorkloadPart(request.task, request.task.check_workloads.at(i));
    const SizeVariant unresized{.name = sizing.variants[i].name};
    const std::string id = SizeJobId(key, unresized.name);
    size_jobs_[id] = {key, i};
    pool_->Submit(PoolJob{.id = id,
                          .message = JobMessage(part, SizeCheckJob{.set = &unresized}),
                          .timeout_s = options_.profile.timeout_s});
  }
}

void Evaluator::FinishSizeCheck(const std::string& key, size_t index, const PoolOutcome& outcome) {
  Sizing& sizing = sizing_.at(key);
  EvalProfile profile = options_.profile;  // As the check's job was told.
  AsSizeCheck(sizing.variants[index], profile.job);
  EvalResult checked;
  const WorkerHello* measured = MeasuredBy(outcome);
  Classify(outcome.facts, profile, checked, measured == nullptr ? nullptr : &measured->ceilings);
  sizing.checks[index] =
      ReadSizeCheck(sizing.variants[index], checked, RanOutOfMemory(outcome.facts));
  if (++sizing.done < sizing.checks.size()) {
    return;
  }
  EvalResult result = std::move(sizing.result);
  AddSizeChecks(std::move(sizing.checks), result);
  const std::optional<uint64_t> group = sizing.group;
  sizing_.erase(key);
  if (group) {
    ready_.emplace_back(*group, std::move(result));
    return;
  }
  LearnMadeSets(requests_.at(waiting_.at(key).front()).first, result.size_checks);
  // A set not judged (a limit, the harness, memory beside others) is judged again next time.
  if (std::ranges::none_of(result.size_checks,
                           [](const SizeCheck& c) { return c.outcome == SizeOutcome::kNotRun; })) {
    Store(nlohmann::json::object(), result);  // Correct: it hit no limit.
  }
  DeliverAll(key, result);
}

std::vector<SizeVariant> Evaluator::InJobSizeSets(const EvalRequest& request,
                                                  const std::string& key) {
  if (!options_.profile.size_checks || request.measurement > 0 || request.task.workload ||
      !request.task.workloads.empty() || sets_apart_.contains(key)) {
    return {};
  }
  const std::string task_key = TaskKey(request);
  auto known = task_sizes_.find(task_key);
  // The sizes are the task's, not a candidate's result: --refresh, which measures the
  // candidates again, still reads them.
  if (known == task_sizes_.end() && cache_) {
    Result<std::optional<nlohmann::json>> hit = cache_->Find(TaskSizesKey(task_key));
    if (hit.ok() && *hit) {
      if (std::optional<std::map<std::string, int64_t>> sizes = RanAtSizes(**hit)) {
        known = task_sizes_.emplace(task_key, std::move(*sizes)).first;
      }
      if (const nlohmann::json made = (*hit)->value("made", nlohmann::json()); made.is_array()) {
        for (const nlohmann::json& name : made) {
          if (name.is_string()) {
            made_sets_[task_key].insert(name.get<std::string>());
          }
        }
      }
    }
  }
  return known == task_sizes_.end() ? std::vector<SizeVariant>{} : SizeVariants(known->second);
}

void Evaluator::LearnTaskSizes(const EvalRequest& request, const nlohmann::json& facts) {
  std::optional<std::map<std::string, int64_t>> sizes = RanAtSizes(facts);
  if (!sizes || request.measurement > 0 || request.task.workload ||
      !request.task.workloads.empty()) {
    return;
  }
  const std::string task_key = TaskKey(request);
  if (auto [it, fresh] = task_sizes_.try_emplace(task_key, *sizes); fresh) {
    StoreTaskSizes(task_key);
  }
}

void Evaluator::LearnMadeSets(const EvalRequest& request, const std::vector<SizeCheck>& checks) {
  const std::string task_key = TaskKey(request);
  std::set<std::string>& made = made_sets_[task_key];
  const size_t before = made.size();
  for (const SizeCheck& check : checks) {
    if (!check.in_job &&
        (check.outcome == SizeOutcome::kPassed || check.outcome == SizeOutcome::kWrong)) {
      made.insert(check.set);
    }
  }
  if (made.size() != before && task_sizes_.contains(task_key)) {
    StoreTaskSizes(task_key);
  }
}

void Evaluator::StoreTaskSizes(const std::string& task_key) {
  if (!cache_) {
    return;
  }
  const auto made = made_sets_.find(task_key);
  const nlohmann::json stored = {
      {"task_sizes", task_sizes_.at(task_key)},
      {"made", made == made_sets_.end() ? nlohmann::json::array() : nlohmann::json(made->second)}};
  if (Status s = cache_->Store(TaskSizesKey(task_key), "task_sizes", stored); !s.ok()) {
    options_.logger->warn("could not store the task's sizes in the cache: {}", s.message());
  }
}

std::string Evaluator::SanitizerKey(const EvalRequest& request) const {
  EvalRequest first = request;
  first.measurement = 0;
  const auto tool = std::ranges::find_if(workers_, HasSanitizer);
  return Sha256Builder()
      .Add("adaexplore-sanitizer-v1")
      .Add(CacheKey(first))
      .Add(options_.profile.sanitizer_tools)
      .Add(fmt::format("{:g}", options_.profile.sanitizer_timeout_s))
      .Add(tool == workers_.end() ? "" : tool->compute_sanitizer.dump())  // Its version too.
      .Finish();
}

uint64_t Evaluator::SubmitSanitizer(EvalRequest request, EvalResult judged) {
  const uint64_t id = ++next_id_;
  const std::string key = CacheKey(request);
  requests_[id] = {std::move(request), key};
  StartSanitizer(id, std::move(judged));
  return id;
}

void Evaluator::StartSanitizer(uint64_t id, EvalResult judged) {
  sanitized_.insert(id);  // Delivered next with its checks, whatever they are.
  const EvalRequest& request = requests_.at(id).first;
  const std::vector<std::string> tools = SanitizerTools(options_.profile);
  const std::string key = SanitizerKey(request);
  if (cache_ && !options_.refresh_cache) {
    Result<std::optional<nlohmann::json>> hit = cache_->Find(key);
    const nlohmann::json stored = hit.ok() && *hit && (*hit)->is_object()
                                      ? (*hit)->value("sanitizer", nlohmann::json())
                                      : nlohmann::json();
    if (stored.is_array() && stored.size() == tools.size()) {  // Else a miss.
      std::vector<SanitizerCheck> checks;
      for (const nlohmann::json& check : stored) {
        checks.push_back(SanitizerCheckFromJson(check));
      }
      AddSanitizerChecks(std::move(checks), judged);
      Deliver(id, std::move(judged));
      return;
    }
  }
  std::string not_run;
  if (request.task.workload || !request.task.workloads.empty()) {
    not_run = "a FlashInfer-Trace definition's workloads are not sanitized yet";
  } else if (std::ranges::none_of(workers_, HasSanitizer)) {
    const nlohmann::json& said =
        workers_.empty() ? nlohmann::json() : workers_.front().compute_sanitizer;
    const std::string why = said.is_object() && said.value("missing", nlohmann::json()).is_string()
                                ? said["missing"].get<std::string>()
                                : "the worker did not say";
    if (!std::exchange(said_no_sanitizer_, true)) {
      options_.logger->warn("compute-sanitizer is not run: {}", why);
    }
    not_run = "compute-sanitizer is not on the worker: " + why;
  }
  if (!not_run.empty()) {
    AddSanitizerChecks(SanitizerNotRun(tools, not_run), judged);
    Deliver(id, std::move(judged));
    return;
  }
  const std::string job_id = fmt::format("sanitize-{}", id);
  pool_->Submit(PoolJob{.id = job_id,
                        .message = JobMessage(request, SanitizerJob{}),
                        .timeout_s = SanitizerJobTimeout(options_.profile)});
  sanitizing_[job_id] = {.id = id, .result = std::move(judged)};
}

void Evaluator::FinishSanitizer(const std::string& job_id, const PoolOutcome& outcome) {
  auto node = sanitizing_.extract(job_id);
  Sanitizing& waiting = node.mapped();
  std::vector<SanitizerCheck> checks =
      ReadSanitizerFacts(outcome.facts, SanitizerTools(options_.profile));
  // Only what the tool said is kept: a run not made, or one that did not finish (a limit, the
  // machine's memory), is made again next time.
  const bool judged = std::ranges::all_of(checks, [](const SanitizerCheck& c) {
    return c.outcome == SanitizerOutcome::kClean || c.outcome == SanitizerOutcome::kErrors;
  });
  if (cache_ && judged) {
    nlohmann::json stored = nlohmann::json::array();
    for (const SanitizerCheck& check : checks) {
      stored.push_back(ToJson(check));
    }
    if (Status s = cache_->Store(SanitizerKey(requests_.at(waiting.id).first), "sanitizer",
                                 {{"sanitizer", stored}});
        !s.ok()) {
      options_.logger->warn("could not store the sanitizer's checks in the cache: {}", s.message());
    }
  }
  AddSanitizerChecks(std::move(checks), waiting.result);
  Deliver(waiting.id, std::move(waiting.result));
}

uint64_t Evaluator::Submit(EvalRequest request) {
  const uint64_t id = ++next_id_;
  if (!request.task.workload && !request.task.workloads.empty()) {
    // One job per workload; the task's result combines theirs (eval/workloads.h).
    std::vector<SourceFile> parts = SplitWorkloads(request.task);
    Group& group = groups_[id];
    group.request = request;
    group.parts.resize(parts.size());
    for (size_t i = 0; i < parts.size(); ++i) {
      const uint64_t part_id = ++next_id_;
      part_of_[part_id] = {id, i};
      EvalRequest part = request;
      part.task = std::move(parts[i]);
      SubmitAs(part_id, std::move(part));
    }
    return id;
  }
  SubmitAs(id, std::move(request));
  return id;
}

size_t Evaluator::outstanding() const {
  // A definition's combined result at its workload checks is still to come.
  return requests_.size() - part_of_.size() + groups_.size() +
         static_cast<size_t>(std::ranges::count_if(
             sizing_, [](const auto& entry) { return entry.second.group.has_value(); }));
}

void Evaluator::SubmitAs(uint64_t id, EvalRequest request) {
  const std::string key = CacheKey(request);
  requests_[id] = {std::move(request), key};
  if (cache_ && !options_.refresh_cache) {
    Result<std::optional<nlohmann::json>> hit = cache_->Find(key);
    if (hit.ok() && !*hit) {
      hit = cache_->Find(LimitsKey(key));  // A timeout under the same limits.
    }
    if (!hit.ok()) {
      options_.logger->warn("result cache lookup failed, evaluating: {}", hit.status().ToString());
    } else if (*hit) {
      EvalResult cached = EvalResultFromJson(**hit);
      cached.cached = true;
      Deliver(id, std::move(cached));
      return;
    }
  }
  auto [it, fresh] = waiting_.try_emplace(key);
  it->second.push_back(id);
  if (fresh) {
    std::vector<SizeVariant> sets = InJobSizeSets(requests_.at(id).first, key);
    if (!sets.empty()) {
      in_job_sets_[key] = sets;
    }
    pool_->Submit(PoolJob{
        .id = key.substr(0, 16),
        .message = JobMessage(requests_.at(id).first, EvaluateJob{.size_sets = std::move(sets)}),
        .timeout_s = options_.profile.timeout_s,
        .avoid_worker = requests_.at(id).first.avoid_worker});
  }
}

void Evaluator::Deliver(uint64_t id, EvalResult result) {
  auto it = requests_.find(id);
  CHECK(it != requests_.end());  // Each id is delivered once.
  const EvalRequest& request = it->second.first;
  // eval --sanitize: a correct first measurement is sanitized before it is delivered (a task's
  // workloads are not, one by one).
  if (options_.profile.sanitize && result.verdict == Verdict::kCorrect &&
      request.measurement == 0 && !sanitized_.contains(id) && !part_of_.contains(id)) {
    StartSanitizer(id, std::move(result));
    return;
  }
  sanitized_.erase(id);
  result.task = request.task.name;
  result.task_path = request.task.path;
  result.kernel_path = request.candidate.path;
  const std::string label = request.task.workload ? WorkloadLabel(*request.task.workload) : "";
  requests_.erase(it);
  auto part = part_of_.find(id);
  if (part == part_of_.end()) {
    ready_.emplace_back(id, std::move(result));
    return;
  }
  const auto [group_id, index] = part->second;
  part_of_.erase(part);
  Group& group = groups_.at(group_id);
  if (on_workload_) {
    on_workload_(result, label, index, group.parts.size());
  }
  group.parts[index] = std::move(result);
  if (++group.done == group.parts.size()) {
    std::vector<EvalResult> parts;
    for (std::optional<EvalResult>& r : group.parts) {
      parts.push_back(std::move(*r));
    }
    EvalResult combined = CombineWorkloads(group.request.task, parts);
    if (options_.profile.sanitize && combined.verdict == Verdict::kCorrect) {
      AddSanitizerChecks(
          SanitizerNotRun(SanitizerTools(options_.profile),
                          "a FlashInfer-Trace definition's workloads are not sanitized yet"),
          combined);
    }
    const EvalRequest whole = std::move(group.request);
    groups_.erase(group_id);
    if (std::vector<SizeVariant> sets =
            WorkloadChecksFor(options_.profile, whole.task, combined, whole.measurement);
        !sets.empty()) {
      StartWorkloadChecks(group_id, whole, std::move(combined), std::move(sets));
      return;
    }
    ready_.emplace_back(group_id, std::move(combined));
  }
}

Result<std::vector<std::pair<uint64_t, EvalResult>>> Evaluator::Poll(
    std::optional<TimePoint> until, const InterruptGuard* guard, const std::vector<int>& wake_fds) {
  if (ready_.empty() && !pool_->idle()) {
    ASSIGN_OR_RETURN(std::vector<PoolOutcome> done, pool_->Step(until, guard, wake_fds));
    for (const PoolOutcome& outcome : done) {
      if (options_.pool.on_progress) {
        options_.pool.on_progress(outcome.id, "done");
      }
      if (sanitizing_.contains(outcome.id)) {
        FinishSanitizer(outcome.id, outcome);
        continue;
      }
      if (auto job = size_jobs_.find(outcome.id); job != size_jobs_.end()) {
        const auto [key, index] = job->second;
        size_jobs_.erase(job);
        FinishSizeCheck(key, index, outcome);
        continue;
      }
      auto it = std::find_if(waiting_.begin(), waiting_.end(), [&](const auto& entry) {
        return entry.first.substr(0, 16) == outcome.id;
      });
      if (it == waiting_.end()) {
        continue;
      }
      const EvalRequest& first = requests_.at(it->second.front()).first;
      // Out of device memory while sharing the GPU says nothing about the candidate: run it
      // again with the device to itself before judging.
      if (RanOutOfMemory(outcome.facts) && retried_alone_.insert(it->first).second) {
        options_.logger->info("job {} ran out of GPU memory beside others; retrying it alone",
                              outcome.id);
        const auto sets = in_job_sets_.find(it->first);
        pool_->Submit(PoolJob{
            .id = outcome.id,
            .message = JobMessage(first, EvaluateJob{.alone = true,
                                                     .size_sets = sets == in_job_sets_.end()
                                                                      ? std::vector<SizeVariant>{}
                                                                      : sets->second}),
            .timeout_s = options_.profile.timeout_s});
        continue;
      }
      // A job that ended while it checked the other sizes took its own sizes' verdict with it:
      // it is made again without them, and each set gets a job of its own (where a crash there
      // is the candidate's, at that set).
      if (in_job_sets_.contains(it->first) && EndedAtSizeSets(outcome.facts)) {
        options_.logger->info(
            "job {} ended while it checked the task's other sizes; evaluating it again without "
            "them, each set in a job of its own",
            outcome.id);
        in_job_sets_.erase(it->first);
        sets_apart_.insert(it->first);
        pool_->Submit(PoolJob{
            .id = outcome.id,
            .message = JobMessage(first, EvaluateJob{.alone = retried_alone_.contains(it->first)}),
            .timeout_s = options_.profile.timeout_s});
        continue;
      }
      EvalResult result = Finish(first, it->first, outcome);
      LearnTaskSizes(first, outcome.facts);
      if (auto carried = in_job_sets_.extract(it->first);
          !carried.empty() && !SizeChecksFor(options_.profile, result, first.measurement).empty()) {
        const WorkerHello* measured = MeasuredBy(outcome);
        AddSizeChecks(ReadSizeSets(carried.mapped(), outcome.facts, options_.profile,
                                   measured == nullptr ? nullptr : &measured->ceilings,
                                   made_sets_[TaskKey(first)]),
                      result);
        if (std::ranges::none_of(result.size_checks, [](const SizeCheck& c) {
              return c.outcome == SizeOutcome::kNotRun;
            })) {
          Store(outcome.facts, result);  // A set not judged is judged again next time.
        }
        DeliverAll(it->first, result);
        continue;
      }
      if (std::vector<SizeVariant> sets =
              SizeChecksFor(options_.profile, result, first.measurement);
          !sets.empty()) {
        StartSizeChecks(first, it->first, std::move(result), std::move(sets));
        continue;
      }
      Store(outcome.facts, result);
      DeliverAll(it->first, result);
    }
  } else if (ready_.empty()) {
    // Nothing to evaluate: still wait (for the wake fds or `until`), on the same poll.
    ASSIGN_OR_RETURN(std::vector<PoolOutcome> ignored, pool_->Step(until, guard, wake_fds));
    (void)ignored;
  }
  return std::exchange(ready_, {});
}

Result<std::vector<EvalResult>> Evaluator::Run(
    const std::vector<EvalRequest>& requests,
    const std::function<void(size_t, const EvalResult&)>& on_result, const InterruptGuard* guard) {
  std::map<uint64_t, size_t> index_of;
  for (size_t i = 0; i < requests.size(); ++i) {
    index_of[Submit(requests[i])] = i;
  }
  std::vector<std::optional<EvalResult>> results(requests.size());
  size_t done = 0;
  while (done < requests.size()) {
    ASSIGN_OR_RETURN(auto ready, Poll(std::nullopt, guard));
    for (auto& [id, result] : ready) {
      const size_t index = index_of.at(id);
      if (on_result) {
        on_result(index, result);
      }
      results[index] = std::move(result);
      ++done;
    }
  }
  std::vector<EvalResult> out;
  out.reserve(results.size());
  for (std::optional<EvalResult>& r : results) {
    CHECK(r.has_value());  // Every submitted request yields exactly one result.
    out.push_back(std::move(*r));
  }
  return out;
}

Result<std::vector<Baseline>> Evaluator::Baselines(
    const std::vector<SourceFile>& tasks, bool with_compile, CacheUse cache_use,
    const InterruptGuard* guard, const std::function<void(size_t, size_t)>& on_measured) {
  CHECK(requests_.empty() && pool_->idle());  // Baselines never share the pool's loop.
  const WorkerHello hello = workers_.empty() ? WorkerHello{} : workers_.front();
  const EvalProfile& profile = options_.profile;
  // Compilation by torch.compile comes on top of the evaluation limit.
  const double timeout_s = profile.timeout_s + (with_compile ? 300 : 0);
  std::vector<Baseline> out(tasks.size());
  std::map<std::string, std::vector<size_t>> waiting;  // Job id -> tasks (equal sources once).
  for (size_t i = 0; i < tasks.size(); ++i) {
    Baseline& b = out[i];
    b.task = tasks[i].name;
    b.task_sha256 = tasks[i].sha256;
    b.key = BaselineKey(tasks[i].sha256, profile, with_compile, hello);
    b.device = hello.device_name;
    b.software = hello.Fingerprint() + "|python " + hello.python;
    b.profile = profile.name;
    b.statistic = profile.statistic;
    if (cache_ && !options_.refresh_cache && cache_use == CacheUse::kRead) {
      Result<std::optional<nlohmann::json>> hit = cache_->FindBaseline(b.key);
      if (!hit.ok()) {
        options_.logger->warn("baseline cache lookup failed, measuring: {}",
                              hit.status().ToString());
      } else if (*hit) {
        const std::string task = b.task;
        b = BaselineFromJson(**hit);
        b.task = task;  // The same source may have been cached under another file name.
        b.cached = true;
        continue;
      }
    }
    const std::string id = "baseline-" + b.key.substr(0, 16);
    auto [it, fresh] = waiting.try_emplace(id);
    it->second.push_back(i);
    if (fresh) {
      nlohmann::json message = BaselineJob(tasks[i], profile, with_compile, hello.device_kind);
      pool_->Submit(PoolJob{.id = id, .message = std::move(message), .timeout_s = timeout_s});
    }
  }
  size_t to_measure = 0;
  for (const auto& [id, indices] : waiting) {
    to_measure += indices.size();
  }
  size_t measured_count = 0;
  while (!waiting.empty()) {
    ASSIGN_OR_RETURN(std::vector<PoolOutcome> done, pool_->Step(std::nullopt, guard));
    for (const PoolOutcome& outcome : done) {
      auto it = waiting.find(outcome.id);
      if (it == waiting.end()) {
        continue;
      }
      const WorkerHello* measured = MeasuredBy(outcome);
      for (size_t i : it->second) {
        Baseline& b = out[i];
        if (measured != nullptr && measured->Fingerprint() != hello.Fingerprint()) {
          b.key = BaselineKey(tasks[i].sha256, profile, with_compile, *measured);
          b.device = measured->device_name;
          b.software = measured->Fingerprint() + "|python " + measured->python;
        }
        ReadBaselineFacts(outcome.facts, b);
        b.measured_at = static_cast<int64_t>(std::time(nullptr));
        if (cache_ && b.eager) {
          if (Status s = cache_->StoreBaseline(b.key, ToJson(b)); !s.ok()) {
            options_.logger->warn("could not store a baseline in the cache: {}", s.message());
          }
        }
      }
      measured_count += it->second.size();
      waiting.erase(it);
      if (on_measured) {
        on_measured(measured_count, to_measure);
      }
    }
  }
  return out;
}

}  // namespace adaexplore
