#include "dist/nats_pool.h"

#include <fmt/format.h>
#include <poll.h>

#include <algorithm>

#include "core/json_text.h"
#include "core/nonce.h"
#include "sys/poll_for.h"
#include "workers/protocol.h"

namespace adaexplore {
namespace {

constexpr double kTurnSeconds = 0.02;  // How long one turn waits for results.
constexpr double kWarnAfterSeconds = 60;

// True when a wake fd is readable or a signal arrived (ppoll with the guard's mask delivers it).
bool Woken(const std::vector<int>& wake_fds, const InterruptGuard* guard) {
  std::vector<pollfd> fds;
  for (int fd : wake_fds) {
    fds.push_back({.fd = fd, .events = POLLIN, .revents = 0});
  }
  // A failed poll wakes nothing: this turn's own wait (kTurnSeconds) paces the loop.
  const Result<int> ready = PollFor(fds, Duration::zero(), guard);
  return ready.ok() && *ready > 0;
}

}  // namespace

nlohmann::json JobEnvelope(const PoolJob& job, const std::string& run) {
  return {{"id", job.id},
          {"message", job.message},
          {"timeout_s", job.timeout_s},
          {"avoid", job.avoid_worker},
          {"reply", nats::ResultSubject(run)},
          {"progress", nats::ProgressSubject(run)}};
}

nlohmann::json ResultEnvelope(const std::string& id, const nlohmann::json& facts,
                              const std::string& worker, int delivered,
                              const std::optional<WorkerHello>& hello) {
  nlohmann::json out = {{"id", id}, {"facts", facts}, {"worker", worker}, {"delivered", delivered}};
  if (hello) {
    out["hello"] = HelloToJson(*hello);
  }
  return out;
}

NatsPool::NatsPool(NatsPoolOptions options, nats::Connection nc, nats::PullConsumer results,
                   nats::Subscription progress, std::string run, WorkerHello hello)
    : options_(std::move(options)),
      nc_(std::move(nc)),
      results_(std::move(results)),
      progress_(std::move(progress)),
      run_(std::move(run)),
      hello_(std::move(hello)),
      last_start_(Clock::now()),
      last_warning_(Clock::now()) {}

NatsPool::~NatsPool() { Shutdown(); }

Result<std::unique_ptr<NatsPool>> NatsPool::Connect(NatsPoolOptions options,
                                                    const InterruptGuard* guard) {
  const std::string run = RandomHex(8);
  ASSIGN_OR_RETURN(nats::Connection nc,
                   nats::Connection::Connect({.url = options.url, .name = "adaexplore-" + run}));
  RETURN_IF_ERROR(nc.EnsureStreams());
  ASSIGN_OR_RETURN(nats::PullConsumer results,
                   nc.PullSubscribe({.stream = nats::kResultStream,
                                     .subject = nats::ResultSubject(run),
                                     .durable = "adx-results-" + run,
                                     .ack_wait_s = 60,
                                     .max_deliver = -1}));
  ASSIGN_OR_RETURN(nats::Subscription progress, nc.Subscribe(nats::ProgressSubject(run)));
  const TimePoint deadline = Clock::now() + Seconds(options.startup_timeout_s);
  Status last = Unavailable("no answer yet");
  while (Clock::now() < deadline) {
    if (guard != nullptr && Woken({}, guard) && InterruptGuard::received() != 0) {
      return Cancelled("interrupted");
    }
    Result<std::string> reply = nc.Request(nats::HelloSubject(options.queue), "{}", 1.0);
    if (reply.ok()) {
      nlohmann::json message = nlohmann::json::parse(*reply, nullptr, false);
      ASSIGN_OR_RETURN(WorkerHello hello, ParseHello(message));
      if (options.queue.empty()) {
        options.queue = message.value("queue", "");
      }
      if (options.queue.empty()) {
        return ProtocolError("a worker's hello names no queue");
      }
      options.logger->info("NATS {}: queue {} answered by {} ({})", options.url, options.queue,
                           message.value("worker", "?"), hello.device_name);
      return std::unique_ptr<NatsPool>(new NatsPool(std::move(options), std::move(nc),
                                                    std::move(results), std::move(progress), run,
                                                    std::move(hello)));
    }
    last = reply.status();
    if (last.code() != StatusCode::kTimeout) {
      // No responders answer at once: wait a little before asking again.
      Woken({}, guard);
      ::poll(nullptr, 0, 500);
    }
  }
  return TimeoutError(
      fmt::format("no adaexplore worker{} answered on {} within {:.0f} s (start `adaexplore "
                  "worker --nats {}` on a GPU host): {}",
                  options.queue.empty() ? "" : " of queue '" + options.queue + "'", options.url,
                  options.startup_timeout_s, options.url, last.message()));
}

void NatsPool::Submit(PoolJob job) {
  const std::string id = job.id;
  Job& entry = jobs_[id];
  entry.job = std::move(job);
  entry.msg_id = fmt::format("{}:{}:{}", run_, id, ++published_);
  entry.published = false;
  PublishPending();
}

void NatsPool::PublishPending() {
  for (auto& [id, job] : jobs_) {
    if (job.published) {
      continue;
    }
    Status s = nc_.Publish(nats::JobSubject(options_.queue), JsonText(JobEnvelope(job.job, run_)),
                           job.msg_id);
    if (!s.ok()) {
      options_.logger->debug("job {} not published yet: {}", id, s.message());
      return;  // The server is away: try again next turn, in order.
    }
    job.published = true;
  }
}

void NatsPool::ReadProgress() {
  while (true) {
    Result<std::optional<nats::Message>> next = progress_.Next(0.001);
    if (!next.ok() || !next->has_value()) {
      return;
    }
    nlohmann::json notice = nlohmann::json::parse(nats::Data(**next), nullptr, false);
    if (!notice.is_object()) {
      continue;
    }
    auto it = jobs_.find(notice.value("id", ""));
    if (it == jobs_.end()) {
      continue;
    }
    Job& job = it->second;
    last_start_ = Clock::now();
    job.worker = notice.value("worker", "");
    ++job.starts;
    job.deadline = Clock::now() + Seconds(OuterLimitSeconds(job));
    if (options_.on_progress) {
      options_.on_progress(it->first, "started on " + job.worker);
    }
    if (job.starts > 1) {
      options_.logger->info("job {} redelivered: started again on {}", it->first, job.worker);
    }
  }
}

void NatsPool::ReadResults(double wait_s, std::vector<PoolOutcome>& done) {
  Result<std::vector<nats::Message>> fetched = results_.Fetch(64, wait_s);
  if (!fetched.ok()) {
    options_.logger->debug("fetching results: {}", fetched.status().message());
    return;
  }
  for (nats::Message& m : *fetched) {
    (void)nats::Ack(m);  // A lost ack redelivers the result, which is then ignored below.
    nlohmann::json result = nlohmann::json::parse(nats::Data(m), nullptr, false);
    if (!result.is_object()) {
      options_.logger->warn("ignoring a malformed result on {}", nats::ResultSubject(run_));
      continue;
    }
    auto it = jobs_.find(result.value("id", ""));
    if (it == jobs_.end()) {
      options_.logger->debug("ignoring a second result for job {}", result.value("id", ""));
      continue;
    }
    std::optional<WorkerHello> hello;
    if (result.contains("hello")) {
      Result<WorkerHello> parsed = ParseHello(result["hello"]);
      if (parsed.ok()) {
        hello = std::move(*parsed);
      } else {
        options_.logger->warn(
            "result of job {} from {} carries an unusable hello ({}): taken as "
            "measured by the first worker's software",
            it->first, result.value("worker", "?"), parsed.status().message());
      }
    }
    done.push_back(PoolOutcome{.id = it->first,
                               .facts = result.value("facts", nlohmann::json::object()),
                               .worker = result.value("worker", ""),
                               .attempts = std::max(1, result.value("delivered", 1)),
                               .hello = std::move(hello)});
    jobs_.erase(it);
  }
}

double NatsPool::OuterLimitSeconds(const Job& job) const {
  // The worker gives the task's phases the job's limit, then the candidate the same again
  // (GPU-lock waits excluded, which this side does not see: the margin has to cover them).
  return 2 * job.job.timeout_s + options_.deadline_margin_s + options_.ack_wait_s;
}

void NatsPool::HandleDeadlines(std::vector<PoolOutcome>& done) {
  const TimePoint now = Clock::now();
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    if (it->second.deadline && now > *it->second.deadline) {
      const Job& job = it->second;
      done.push_back(PoolOutcome{
          .id = it->first,
          .facts = HarnessFacts(
              FactStatus::kTimeout,
              fmt::format("no result within {:.0f} s of the job's last start (on {}), redeliveries "
                          "included",
                          OuterLimitSeconds(job), job.worker),
              "remote"),
          .worker = job.worker,
          .attempts = job.starts});
      it = jobs_.erase(it);
    } else {
      ++it;
    }
  }
  // Jobs waiting while no worker has started anything for a minute: nobody serves the queue.
  const bool waiting = std::any_of(jobs_.begin(), jobs_.end(),
                                   [](const auto& j) { return !j.second.deadline.has_value(); });
  const Duration quiet = Seconds(kWarnAfterSeconds);
  if (waiting && now - last_start_ > quiet && now - last_warning_ > quiet) {
    last_warning_ = now;
    options_.logger->warn("jobs wait on queue {} and no worker has started one for {:.0f} s{}",
                          options_.queue, kWarnAfterSeconds,
                          nc_.connected() ? "" : " (not connected to the NATS server)");
  }
}

Result<std::vector<PoolOutcome>> NatsPool::Step(std::optional<TimePoint> until,
                                                const InterruptGuard* guard,
                                                const std::vector<int>& wake_fds) {
  std::vector<PoolOutcome> done;
  while (true) {
    const bool woken = Woken(wake_fds, guard);
    if (guard != nullptr && InterruptGuard::received() != 0) {
      return Cancelled("interrupted");
    }
    PublishPending();
    ReadProgress();
    double wait_s = kTurnSeconds;
    if (until) {
      wait_s = std::clamp(std::chrono::duration<double>(*until - Clock::now()).count(), 0.001,
                          kTurnSeconds);
    }
    if (!jobs_.empty()) {
      ReadResults(wait_s, done);
      HandleDeadlines(done);
    } else {
      ::poll(nullptr, 0, static_cast<int>(wait_s * 1000));
    }
    if (!done.empty() || woken || (until && Clock::now() >= *until)) {
      return done;
    }
  }
}

void NatsPool::Shutdown() {
  if (!jobs_.empty()) {
    options_.logger->info("{} job(s) left on the queue unfinished", jobs_.size());
  }
  jobs_.clear();
  if (Status s = results_.Delete(); !s.ok()) {
    options_.logger->debug("removing the results consumer: {}", s.message());
  }
}

}  // namespace adaexplore
