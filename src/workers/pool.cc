#include "workers/pool.h"

// The loop is ninja's SubprocessSet::DoWork with deadlines: ppoll on every live worker's socket,
// with the earliest deadline (job deadline, restart time, caller's limit) as the timeout, and the
// interrupt signals unblocked only while waiting.

#include <fmt/format.h>
#include <poll.h>

#include <algorithm>
#include <csignal>

#include "sys/poll_for.h"
#include "workers/protocol.h"

namespace adaexplore {
namespace {

constexpr double kMaxBackoffSeconds = 30;
constexpr int kMaxAttempts = 2;       // A job whose worker dies twice under it is the killer.
constexpr int kMaxHarnessDeaths = 3;  // Then it is the harness's error, not judged.
constexpr double kIdleWakeSeconds = 1.0;

// Signals something else can send (a user, a script, the OOM killer): a child that died of one
// may not have done it itself, so its crash counts only if it happens again when it runs alone.
// A segfault, an abort or a bus error are the process's own doing.
bool MaybeSentFromOutside(const nlohmann::json& facts) {
  if (facts.value("status", "") != "crash" || facts.contains("message")) {
    return false;  // A message: the worker saw who sent it (the candidate's own tree).
  }
  const auto signal = facts.find("signal");
  if (signal == facts.end() || !signal->is_number_integer()) {
    return false;
  }
  const int sig = signal->get<int>();
  return sig == SIGKILL || sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT ||
         sig == SIGUSR1 || sig == SIGUSR2;
}

}  // namespace

WorkerPool::WorkerPool(std::vector<WorkerSpec> specs, PoolOptions options)
    : options_(std::move(options)) {
  for (WorkerSpec& spec : specs) {
    slots_.push_back(Slot{.spec = std::move(spec)});
  }
}

WorkerPool::~WorkerPool() { Shutdown(); }

Status WorkerPool::Start() {
  std::string errors;
  for (Slot& slot : slots_) {
    Result<std::unique_ptr<Worker>> worker = Worker::Start(slot.spec, options_.logger);
    if (worker.ok()) {
      slot.worker = std::move(*worker);
    } else {
      slot.last_failure = worker.status().message();
      errors += slot.last_failure + "; ";
    }
  }
  const bool any =
      std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.worker != nullptr; });
  return any ? Status::Ok() : Unavailable("no evaluation worker could be spawned: " + errors);
}

Status WorkerPool::WaitReady(TimePoint deadline, const InterruptGuard* guard) {
  auto starting = [this] {
    return std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) {
      return s.worker && s.worker->state() == Worker::State::kStarting;
    });
  };
  while (starting() && Clock::now() < deadline) {
    Result<std::vector<PoolOutcome>> step = Step(deadline, guard);
    if (!step.ok()) {
      return step.status();
    }
  }
  if (ready_workers().empty()) {
    std::string reasons;
    for (const std::string& f : failures()) {
      reasons += "\n  " + f;
    }
    return Unavailable("no evaluation worker became ready" +
                       (reasons.empty() ? std::string(" in time") : ":" + reasons));
  }
  return Status::Ok();
}

void WorkerPool::Submit(PoolJob job) { pending_.push_back(Pending{.job = std::move(job)}); }

std::vector<WorkerHello> WorkerPool::ready_workers() const {
  std::vector<WorkerHello> out;
  for (const Slot& slot : slots_) {
    if (slot.worker && slot.worker->state() == Worker::State::kReady) {
      out.push_back(slot.worker->hello());
    }
  }
  return out;
}

int WorkerPool::capacity() const {
  int total = 0;
  for (const Slot& slot : slots_) {
    if (slot.worker && slot.worker->state() == Worker::State::kReady) {
      total += std::max(1, slot.spec.slots) + std::max(0, slot.spec.ahead);
    }
  }
  return total;
}

std::vector<std::string> WorkerPool::failures() const {
  std::vector<std::string> out;
  for (const Slot& slot : slots_) {
    std::string reason = slot.worker ? slot.worker->failure() : slot.last_failure;
    if (reason.empty()) {
      reason = slot.last_failure;
    }
    if (!reason.empty()) {
      out.push_back(slot.spec.label + ": " + reason);
    }
  }
  return out;
}

size_t WorkerPool::RunningOn(size_t slot) const {
  return static_cast<size_t>(std::count_if(
      running_.begin(), running_.end(), [slot](const auto& r) { return r.second.slot == slot; }));
}

bool WorkerPool::SoloRunningOn(size_t slot) const {
  return std::any_of(running_.begin(), running_.end(), [slot](const auto& r) {
    return r.second.slot == slot && r.second.pending.solo;
  });
}

void WorkerPool::Dispatch() {
  auto ready = [&](size_t i) {
    return slots_[i].worker && slots_[i].worker->state() == Worker::State::kReady;
  };
  for (auto it = pending_.begin(); it != pending_.end();) {
    std::optional<size_t> chosen;
    size_t least_busy = SIZE_MAX;
    // A job avoiding a worker waits for another one, unless no other is ready at all.
    const std::string& avoid = it->job.avoid_worker;
    bool other_ready = false;
    for (size_t i = 0; i < slots_.size(); ++i) {
      other_ready |= ready(i) && slots_[i].spec.label != avoid;
    }
    for (size_t i = 0; i < slots_.size(); ++i) {
      const Slot& slot = slots_[i];
      if (!ready(i) || SoloRunningOn(i) ||
          (!avoid.empty() && other_ready && slot.spec.label == avoid)) {
        continue;
      }
      const size_t busy = RunningOn(i);
      const WorkerHello& hello = slot.worker->hello();
      const size_t capacity = it->solo ? 1 : static_cast<size_t>(hello.slots + hello.ahead);
      if (busy < capacity && (!it->solo || busy == 0) && busy < least_busy) {
        chosen = i;
        least_busy = busy;
      }
    }
    if (!chosen) {
      ++it;
      continue;
    }
    Pending job = std::move(*it);
    it = pending_.erase(it);
    nlohmann::json message = job.job.message;
    message["type"] = "eval";
    message["id"] = job.job.id;
    message["timeout_s"] = job.job.timeout_s;
    Worker& worker = *slots_[*chosen].worker;
    if (Status sent = worker.Send(message); !sent.ok()) {
      options_.logger->warn("worker {}: cannot send job: {}", worker.spec().label, sent.message());
      pending_.push_front(std::move(job));
      worker.Kill();  // Its death is handled on the next turn, like any other.
      return;
    }
    ++job.attempts;
    const TimePoint deadline =
        Clock::now() + Seconds(job.job.timeout_s + options_.deadline_margin_s);
    const std::string id = job.job.id;
    running_[id] = Running{
        .pending = std::move(job), .slot = *chosen, .deadline = deadline, .hello = worker.hello()};
  }
}

Result<std::vector<PoolOutcome>> WorkerPool::Step(std::optional<TimePoint> until,
                                                  const InterruptGuard* guard,
                                                  const std::vector<int>& wake_fds) {
  std::vector<PoolOutcome> done;
  RestartDue();
  FailEverythingIfNoWorkerLeft(done);
  Dispatch();
  if (!done.empty()) {
    return done;
  }
  std::vector<pollfd> fds;
  std::vector<size_t> fd_slots;
  for (size_t i = 0; i < slots_.size(); ++i) {
    const Worker* w = slots_[i].worker.get();
    if (w && (w->state() == Worker::State::kReady || w->state() == Worker::State::kStarting)) {
      fds.push_back(pollfd{w->fd(), POLLIN, 0});
      fd_slots.push_back(i);
    }
  }
  for (int fd : wake_fds) {
    fds.push_back(pollfd{fd, POLLIN, 0});
  }
  const TimePoint now = Clock::now();
  TimePoint wake = now + Seconds(kIdleWakeSeconds);
  if (auto next = Earliest(NextWakeup(), until)) {
    wake = std::min(wake, *next);
  }
  const Result<int> ready = PollFor(fds, wake - now, guard);
  if (guard != nullptr && InterruptGuard::received() != 0) {
    return Cancelled("interrupted");
  }
  if (!ready.ok()) {
    return ready.status();
  }
  if (*ready > 0) {
    for (size_t k = 0; k < fd_slots.size(); ++k) {
      if (fds[k].revents != 0) {
        HandleEvents(fd_slots[k], done);
      }
    }
  }
  HandleDeadlines(done);
  for (size_t i = 0; i < slots_.size(); ++i) {
    const Worker* w = slots_[i].worker.get();
    if (w && w->state() == Worker::State::kDead) {
      HandleDeadWorker(i, done);
    }
  }
  return done;
}

void WorkerPool::HandleEvents(size_t slot, std::vector<PoolOutcome>& done) {
  Worker& worker = *slots_[slot].worker;
  for (WorkerEvent& event : worker.Read()) {
    auto it = running_.find(event.id);
    if (event.kind == WorkerEvent::Kind::kHello || event.kind == WorkerEvent::Kind::kStarted) {
      continue;
    }
    if (it == running_.end() || it->second.slot != slot) {
      options_.logger->debug("worker {}: message for unknown job {}", worker.spec().label,
                             event.id);
      continue;
    }
    if (event.kind == WorkerEvent::Kind::kProgress) {
      it->second.phase = event.body.value("phase", "");
      // The worker's limit moved (the task's phases ended, a GPU-lock wait): the outer deadline
      // follows, so waits never count against the candidate here either.
      if (const auto remaining = event.body.find("remaining_s");
          remaining != event.body.end() && remaining->is_number()) {
        it->second.deadline =
            Clock::now() + Seconds(remaining->get<double>() + options_.deadline_margin_s);
      }
      if (options_.on_progress) {
        options_.on_progress(event.id, it->second.phase);
      }
      continue;
    }
    nlohmann::json& facts = event.body["facts"];
    Pending& pending = it->second.pending;
    if (MaybeSentFromOutside(facts) && pending.attempts < kMaxAttempts) {
      options_.logger->warn(
          "job {} died of signal {} during {}; retrying it alone to know whether "
          "it did that itself",
          event.id, facts["signal"].get<int>(), it->second.phase);
      pending.solo = true;
      pending_.push_front(std::move(pending));
      running_.erase(it);
      continue;
    }
    if (pending.solo && pending.attempts > 1) {
      if (!facts["notes"].is_array()) {
        facts["notes"] = nlohmann::json::array();
      }
      facts["notes"].push_back(
          "an earlier attempt was lost with its process; this one ran alone on its worker");
    }
    done.push_back(MakeOutcome(it->second, std::move(facts)));
    running_.erase(it);
  }
}

void WorkerPool::HandleDeadWorker(size_t slot_index, std::vector<PoolOutcome>& done) {
  Slot& slot = slots_[slot_index];
  const std::string label = slot.spec.label;
  slot.last_failure = slot.worker->failure();
  const std::string outside = slot.worker->stopped_from_outside();
  slot.worker.reset();
  for (auto it = running_.begin(); it != running_.end();) {
    if (it->second.slot != slot_index) {
      ++it;
      continue;
    }
    Running running = std::move(it->second);
    it = running_.erase(it);
    if (!outside.empty() || IsTaskPhase(running.phase)) {
      // Not this candidate's doing: the attempt does not count against it.
      const std::string why =
          outside.empty()
              ? fmt::format("during {}, before the candidate was imported", running.phase)
              : outside;
      if (++running.pending.harness_deaths >= kMaxHarnessDeaths) {
        done.push_back(MakeOutcome(
            running,
            HarnessFacts(FactStatus::kHarnessError,
                         fmt::format("the evaluation worker died {} times while this "
                                     "candidate was evaluated, not by its doing (last: {})",
                                     running.pending.harness_deaths, why),
                         running.phase)));
      } else {
        options_.logger->warn("worker {} died under job {} ({}); it runs again", label,
                              running.pending.job.id, why);
        --running.pending.attempts;
        pending_.push_front(std::move(running.pending));
      }
      continue;
    }
    if (running.pending.attempts >= kMaxAttempts) {
      done.push_back(MakeOutcome(
          running,
          HarnessFacts(FactStatus::kCrash,
                       fmt::format("the evaluation worker died {} times while running this "
                                   "candidate (during {}): the candidate kills the process "
                                   "that runs it",
                                   running.pending.attempts, running.phase),
                       running.phase)));
    } else {
      options_.logger->warn("worker {} died while running job {}; retrying it alone", label,
                            running.pending.job.id);
      running.pending.solo = true;
      pending_.push_front(std::move(running.pending));
    }
  }
  if (slot.restarts >= options_.max_restarts_per_worker) {
    slot.last_failure = fmt::format("died {} times; not restarted", slot.restarts + 1);
    options_.logger->error("worker {} {}", label, slot.last_failure);
    return;
  }
  const double backoff =
      std::min(kMaxBackoffSeconds, options_.restart_backoff_s * (1 << std::min(slot.restarts, 5)));
  slot.restart_at = Clock::now() + Seconds(slot.restarts == 0 ? 0.0 : backoff);
  ++slot.restarts;
}

void WorkerPool::HandleDeadlines(std::vector<PoolOutcome>& done) {
  const TimePoint now = Clock::now();
  for (size_t i = 0; i < slots_.size(); ++i) {
    bool overdue = false;
    for (auto it = running_.begin(); it != running_.end();) {
      if (it->second.slot == i && now > it->second.deadline) {
        overdue = true;
        done.push_back(MakeOutcome(
            it->second,
            HarnessFacts(FactStatus::kTimeout,
                         fmt::format("the worker did not report within its outer deadline (during "
                                     "{}); the worker was killed and restarted",
                                     it->second.phase),
                         it->second.phase)));
        it = running_.erase(it);
      } else {
        ++it;
      }
    }
    if (overdue && slots_[i].worker) {
      options_.logger->warn("worker {} missed a deadline; killing it", slots_[i].spec.label);
      // Its other jobs were not at fault: they go back to the queue without an attempt counted.
      for (auto it = running_.begin(); it != running_.end();) {
        if (it->second.slot == i) {
          Pending again = std::move(it->second.pending);
          --again.attempts;
          pending_.push_front(std::move(again));
          it = running_.erase(it);
        } else {
          ++it;
        }
      }
      slots_[i].worker->Kill();
    }
  }
  for (size_t i = 0; i < slots_.size(); ++i) {
    Slot& slot = slots_[i];
    if (slot.worker && slot.worker->state() == Worker::State::kStarting &&
        now > slot.worker->started_at() + Seconds(slot.spec.startup_timeout_s)) {
      slot.worker->Fail(fmt::format("no hello within {:g} s; see {}", slot.spec.startup_timeout_s,
                                    slot.worker->log_path()));
      slot.last_failure = slot.worker->failure();
    }
  }
}

void WorkerPool::RestartDue() {
  const TimePoint now = Clock::now();
  for (Slot& slot : slots_) {
    if (slot.worker || !slot.restart_at || now < *slot.restart_at) {
      continue;
    }
    slot.restart_at.reset();
    Result<std::unique_ptr<Worker>> worker = Worker::Start(slot.spec, options_.logger);
    if (worker.ok()) {
      options_.logger->info("worker {} restarted", slot.spec.label);
      slot.worker = std::move(*worker);
    } else {
      slot.last_failure = worker.status().message();
      options_.logger->error("worker {} could not restart: {}", slot.spec.label, slot.last_failure);
    }
  }
}

void WorkerPool::FailEverythingIfNoWorkerLeft(std::vector<PoolOutcome>& done) {
  const bool any_alive = std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) {
    const bool live = s.worker && (s.worker->state() == Worker::State::kReady ||
                                   s.worker->state() == Worker::State::kStarting);
    return live || (!s.worker && s.restart_at.has_value());
  });
  if (any_alive || (pending_.empty() && running_.empty())) {
    return;
  }
  std::string reasons;
  for (const std::string& f : failures()) {
    reasons += (reasons.empty() ? "" : "; ") + f;
  }
  const std::string message = "no evaluation worker is available: " + reasons;
  for (auto& [id, running] : running_) {
    done.push_back(
        MakeOutcome(running, HarnessFacts(FactStatus::kHarnessError, message, running.phase)));
  }
  running_.clear();
  while (!pending_.empty()) {
    Running fake{.pending = std::move(pending_.front())};
    pending_.pop_front();
    done.push_back(MakeOutcome(fake, HarnessFacts(FactStatus::kHarnessError, message, "queued")));
  }
}

std::optional<TimePoint> WorkerPool::NextWakeup() const {
  std::optional<TimePoint> next;
  for (const auto& [id, running] : running_) {
    next = Earliest(next, running.deadline);
  }
  for (const Slot& slot : slots_) {
    next = Earliest(next, slot.restart_at);
    if (slot.worker && slot.worker->state() == Worker::State::kStarting) {
      next = Earliest(next, slot.worker->started_at() + Seconds(slot.spec.startup_timeout_s));
    }
  }
  return next;
}

PoolOutcome WorkerPool::MakeOutcome(const Running& running, nlohmann::json facts) const {
  return PoolOutcome{.id = running.pending.job.id,
                     .facts = std::move(facts),
                     .worker = slots_[running.slot].spec.label,
                     .attempts = running.pending.attempts,
                     .hello = running.hello};
}

void WorkerPool::Shutdown() {
  for (Slot& slot : slots_) {
    if (slot.worker && slot.worker->state() == Worker::State::kReady) {
      (void)slot.worker->Send({{"type", "shutdown"}});
    }
  }
  for (Slot& slot : slots_) {
    slot.worker.reset();  // Kills the group (after a grace period in which it can exit cleanly).
  }
}

}  // namespace adaexplore
