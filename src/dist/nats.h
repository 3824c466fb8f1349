#pragma once

// NATS JetStream for scale-out, as values: a connection that reconnects by itself, the streams and
// subjects adaexplore uses, publishing with a message id (JetStream drops a repeat of an id inside
// its duplicate window), pull consumers, and messages that are acked, marked in progress or
// terminated. Every handle of the C client (libnats) is owned RAII. Not thread-safe: one loop owns
// each object (the client's own threads only move bytes; no callback of ours runs on them).
//
// Subjects (QUEUE names a kind of device, "nvidia-h200" or "cpu"; RUN one orchestrator):
//   adx.jobs.QUEUE       evaluation jobs; stream ADX_JOBS, a work queue: each job to one worker,
//                        redelivered when its worker stops heartbeating
//   adx.results.RUN      results; stream ADX_RESULTS (kept a day)
//   adx.progress.RUN     "started" notices (core NATS: one that is lost costs nothing)
//   adx.hello.QUEUE      a request the live workers of QUEUE answer with their hello
//   adx.hello            the same for any queue (the hello names the queue)
//
// Example:
//   ASSIGN_OR_RETURN(nats::Connection nc, nats::Connection::Connect({.url = url}));
//   RETURN_IF_ERROR(nc.EnsureStreams());
//   RETURN_IF_ERROR(nc.Publish(nats::JobSubject("cpu"), job.dump(), job_id));

#include <nats/nats.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "workers/protocol.h"

namespace adaexplore::nats {

inline constexpr const char* kJobStream = "ADX_JOBS";
inline constexpr const char* kResultStream = "ADX_RESULTS";

std::string JobSubject(std::string_view queue);
std::string ResultSubject(std::string_view run);
std::string ProgressSubject(std::string_view run);
std::string HelloSubject(std::string_view queue);

// The queue of a device: its name in lower case, runs of other characters as one '-'
// ("NVIDIA H200" -> "nvidia-h200"); a CPU worker's queue is "cpu".
std::string QueueName(DeviceKind device_kind, std::string_view device_name);

struct MessageDeleter {
  void operator()(natsMsg* m) const { natsMsg_Destroy(m); }
};
using Message = std::unique_ptr<natsMsg, MessageDeleter>;

std::string Data(const Message& m);
std::string Header(const Message& m, const char* key);  // "" when absent.
int Delivered(const Message& m);                        // 1 on first delivery; 0 if unknown.
Status Ack(const Message& m);
Status InProgress(const Message& m);  // Resets the redelivery timer.
Status Term(const Message& m);        // Never redeliver (a malformed job).
Status Nak(const Message& m);         // Redeliver now, to anyone (this host is stopping).
Status NakAfter(const Message& m, double delay_s);  // Redeliver later, to anyone.

// A core NATS subscription read without callbacks.
class Subscription {
 public:
  // The next message within `timeout_s`, or none.
  Result<std::optional<Message>> Next(double timeout_s);

 private:
  friend class Connection;
  struct Deleter {
    void operator()(natsSubscription* s) const { natsSubscription_Destroy(s); }
  };
  std::unique_ptr<natsSubscription, Deleter> sub_;
};

// A durable JetStream pull consumer.
class PullConsumer {
 public:
  // Up to `batch` messages, waiting at most `timeout_s` for the first; none is not an error.
  Result<std::vector<Message>> Fetch(int batch, double timeout_s);
  // Deletes the durable consumer on the server (the orchestrator's own, when it is done).
  Status Delete();

 private:
  friend class Connection;
  struct Deleter {
    void operator()(natsSubscription* s) const { natsSubscription_Destroy(s); }
  };
  std::unique_ptr<natsSubscription, Deleter> sub_;
};

struct ConnectOptions {
  std::string url = "nats://127.0.0.1:4222";
  std::string name = "adaexplore";
  double timeout_s = 5;  // Per request to the server.
  double reconnect_wait_s = 0.25;
};

struct ConsumerOptions {
  std::string stream;
  std::string subject;
  std::string durable;
  double ack_wait_s = 30;  // Redelivered this long after the last ack or heartbeat.
  int max_deliver = 5;
  int max_ack_pending = 10000;
};

class Connection {
 public:
  // Connects, and keeps reconnecting forever after a loss (the server restarting included).
  // The first connection may fail: that is an error naming the URL.
  static Result<Connection> Connect(const ConnectOptions& options);

  // Creates the streams where missing (file storage, so a restarted server keeps them).
  Status EnsureStreams();

  // A JetStream publish, acknowledged by the server; `msg_id` dedups repeats.
  Status Publish(const std::string& subject, const std::string& data, const std::string& msg_id);
  // A core NATS publish (no acknowledgement) and a request with its reply.
  Status PublishCore(const std::string& subject, const std::string& data);
  Result<std::string> Request(const std::string& subject, const std::string& data,
                              double timeout_s);
  // Answers a request received on a core subscription.
  Status Respond(const Message& request, const std::string& data);

  Result<Subscription> Subscribe(const std::string& subject);
  Result<PullConsumer> PullSubscribe(const ConsumerOptions& options);

  bool connected() const;
  // Flushes what is buffered to the server (best effort; false when disconnected).
  bool Flush(double timeout_s);

 private:
  struct ConnectionDeleter {
    void operator()(natsConnection* c) const;
  };
  struct JsDeleter {
    void operator()(jsCtx* js) const { jsCtx_Destroy(js); }
  };
  std::unique_ptr<natsConnection, ConnectionDeleter> nc_;
  std::unique_ptr<jsCtx, JsDeleter> js_;
  double timeout_s_ = 5;
};

}  // namespace adaexplore::nats
