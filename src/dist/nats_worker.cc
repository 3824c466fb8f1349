#include "dist/nats_worker.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <map>

#include "core/json_text.h"
#include "dist/nats.h"
#include "dist/nats_pool.h"

namespace adaexplore {
namespace {

constexpr double kTurnSeconds = 0.05;
// A host that made a kernel's first measurement hands the second back on its first deliveries
// (fewer than max_deliver allows, or the server would drop the job), each time after
// kAvoidDelaySeconds: about 10 s for another host busy with an evaluation of its own to take it
// (2 s was not enough on a loaded CI machine), and no longer than that for a fleet of one.
constexpr int kAvoidDeliveries = 4;
constexpr double kAvoidDelaySeconds = 2.5;
// A redelivery goes to whichever host is fetching when it comes back: the host that handed the
// job back keeps out of the fetch this long either side of that moment, so another host with a
// free slot takes it (fetching as ever, about one in two redeliveries came back to it).
constexpr double kAvoidWindowSeconds = 0.4;

std::string HostName() {
  char name[256] = {};
  return ::gethostname(name, sizeof(name) - 1) == 0 ? std::string(name) : std::string("host");
}

nlohmann::json HelloJson(const WorkerHello& hello, const std::string& host, int workers,
                         int capacity) {
  nlohmann::json out = HelloToJson(hello);
  out["worker"] = host;
  out["workers"] = workers;
  out["capacity"] = capacity;
  return out;
}

// One job this host holds: its message (to ack, heartbeat or hand back) and where to answer.
struct Held {
  nats::Message message;
  std::string id;  // The orchestrator's job id.
  std::string reply;
  std::string msg_id;
  int delivered = 0;
  TimePoint last_beat;
};

// A result waiting to be published (and its job acked).
struct Outgoing {
  Held held;
  std::string data;
};

}  // namespace

Result<int> RunNatsWorker(NatsWorkerOptions options, const InterruptGuard& guard) {
  const std::string host = options.host.empty() ? HostName() : options.host;
  options.pool.logger = options.logger;
  WorkerPool pool(options.specs, options.pool);
  RETURN_IF_ERROR(pool.Start());
  RETURN_IF_ERROR(pool.WaitReady(Clock::now() + Seconds(options.startup_timeout_s), &guard));
  const std::vector<WorkerHello> hellos = pool.ready_workers();
  const WorkerHello& first = hellos.front();
  const std::string queue = nats::QueueName(first.device_kind, first.device_name);
  ASSIGN_OR_RETURN(nats::Connection nc,
                   nats::Connection::Connect({.url = options.url, .name = "adaexplore-" + host}));
  RETURN_IF_ERROR(nc.EnsureStreams());
  ASSIGN_OR_RETURN(nats::PullConsumer jobs, nc.PullSubscribe({.stream = nats::kJobStream,
                                                              .subject = nats::JobSubject(queue),
                                                              .durable = "adx-workers-" + queue,
                                                              .ack_wait_s = options.ack_wait_s,
                                                              .max_deliver = options.max_deliver}));
  const int avoid_deliveries = options.max_deliver > 0
                                   ? std::min(kAvoidDeliveries, options.max_deliver - 1)
                                   : kAvoidDeliveries;  // max_deliver <= 0: unlimited.
  ASSIGN_OR_RETURN(nats::Subscription hello_requests, nc.Subscribe(nats::HelloSubject(queue)));
  ASSIGN_OR_RETURN(nats::Subscription any_requests, nc.Subscribe(nats::HelloSubject("")));
  nlohmann::json hello_json =
      HelloJson(first, host, static_cast<int>(hellos.size()), pool.capacity());
  hello_json["queue"] = queue;
  const std::string hello = JsonText(hello_json);
  (void)std::fprintf(stderr, "worker %s: %zu worker(s), %d slot(s), serving queue %s on %s\n",
                     host.c_str(), hellos.size(), pool.capacity(), queue.c_str(),
                     options.url.c_str());

  std::map<std::string, Held> running;  // By pool job id (the job's message id).
  std::deque<Outgoing> outbox;
  std::vector<TimePoint> handed_back;  // When the jobs this host avoids come back.
  const Duration beat = Seconds(std::max(0.2, options.ack_wait_s / 3));
  while (true) {
    // Hello requests.
    for (nats::Subscription* requests : {&hello_requests, &any_requests}) {
      while (true) {
        Result<std::optional<nats::Message>> request = requests->Next(0.001);
        if (!request.ok() || !request->has_value()) {
          break;
        }
        (void)nc.Respond(**request, hello);
      }
    }
    // Evaluations that finished become results to publish.
    Result<std::vector<PoolOutcome>> finished =
        pool.Step(Clock::now() + Seconds(kTurnSeconds), &guard);
    if (!finished.ok()) {
      break;  // Interrupted.
    }
    for (PoolOutcome& outcome : *finished) {
      auto it = running.find(outcome.id);
      if (it == running.end()) {
        continue;
      }
      Held held = std::move(it->second);
      running.erase(it);
      const std::string worker = fmt::format("{}/{}", host, outcome.worker);
      std::string data =
          JsonText(ResultEnvelope(held.id, outcome.facts, worker, held.delivered, outcome.hello));
      outbox.push_back({std::move(held), std::move(data)});
    }
    // Publish, then ack: a host that dies in between makes a duplicate, never a loss.
    while (!outbox.empty()) {
      Outgoing& out = outbox.front();
      if (Status s = nc.Publish(out.held.reply, out.data, out.held.msg_id + ":result"); !s.ok()) {
        options.logger->debug("result of {} not published yet: {}", out.held.id, s.message());
        break;
      }
      if (Status s = nats::Ack(out.held.message); !s.ok()) {
        options.logger->info("ack of {} lost ({}): it may run again elsewhere, counted once",
                             out.held.id, s.message());
      }
      outbox.pop_front();
    }
    // Heartbeats for what runs here.
    const TimePoint now = Clock::now();
    for (auto& [pool_id, held] : running) {
      if (now - held.last_beat >= beat && nats::InProgress(held.message).ok()) {
        held.last_beat = now;
      }
    }
    // Only as many new jobs as there are free slots.
    const int free = pool.capacity() - static_cast<int>(running.size() + outbox.size());
    std::erase_if(handed_back,
                  [&](TimePoint back) { return now - back > Seconds(kAvoidWindowSeconds); });
    const bool stand_aside = std::ranges::any_of(
        handed_back, [&](TimePoint back) { return back - now < Seconds(kAvoidWindowSeconds); });
    if (free <= 0 || stand_aside) {
      continue;
    }
    Result<std::vector<nats::Message>> fetched = jobs.Fetch(free, 0.01);
    if (!fetched.ok()) {
      options.logger->debug("fetching jobs: {}", fetched.status().message());
      continue;
    }
    for (nats::Message& m : *fetched) {
      nlohmann::json job = nlohmann::json::parse(nats::Data(m), nullptr, false);
      const std::string msg_id = nats::Header(m, "Nats-Msg-Id");
      if (!job.is_object() || !job.contains("message") || !job["message"].is_object() ||
          job.value("id", "").empty() || job.value("reply", "").empty() || msg_id.empty()) {
        options.logger->warn("terminating a malformed job on {}", nats::JobSubject(queue));
        (void)nats::Term(m);
        continue;
      }
      const int delivered = nats::Delivered(m);
      // A second measurement avoids the host that made the first: leave it to another host for
      // a few deliveries, then take it (this may be the only host).
      const std::string avoid = job.value("avoid", "");
      if (!avoid.empty() && avoid.substr(0, avoid.find('/')) == host &&
          delivered < avoid_deliveries) {
        (void)nats::NakAfter(m, kAvoidDelaySeconds);
        handed_back.push_back(Clock::now() + Seconds(kAvoidDelaySeconds));
        continue;
      }
      if (auto again = running.find(msg_id); again != running.end()) {
        again->second.message = std::move(m);  // Redelivered while still running here.
        continue;
      }
      Held held{.message = std::move(m),
                .id = job.value("id", ""),
                .reply = job.value("reply", ""),
                .msg_id = msg_id,
                .delivered = delivered,
                .last_beat = Clock::now()};
      pool.Submit(PoolJob{
          .id = msg_id, .message = job["message"], .timeout_s = job.value("timeout_s", 180.0)});
      (void)nc.PublishCore(
          job.value("progress", ""),
          JsonText(nlohmann::json{{"id", held.id}, {"worker", host}, {"delivered", delivered}}));
      options.logger->info("job {} (delivery {}) started", held.id, delivered);
      running.emplace(msg_id, std::move(held));
    }
  }
  // Interrupted: hand back what runs here so another host takes it now.
  for (auto& [pool_id, held] : running) {
    (void)nats::Nak(held.message);
  }
  nc.Flush(2);
  (void)std::fprintf(stderr, "worker %s: stopped; %zu running job(s) handed back\n", host.c_str(),
                     running.size());
  pool.Shutdown();
  return 0;
}

}  // namespace adaexplore
