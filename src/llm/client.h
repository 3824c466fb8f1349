#pragma once

// LlmClient: many LLM calls in flight on one I/O thread (libcurl's multi interface, no thread per
// request), each provider capped at its own concurrency, with retries, the response cache, the
// recording, replay and the ledger in one place. The search never blocks on it: it submits
// requests and collects completions when wakeup_fd() turns readable, from its own poll loop.
//
//   submit ─► [cache hit? replay?] ─► provider queue ─► (slot free, budget left, not paused)
//                 │ yes                                    ─► HTTP ─► parse ─┬─► reply ─► cache,
//                 ▼                                                          │    record, ledger
//             completion ◄───────────────────────────────────────────────────┤
//                                   transient error: backoff (Retry-After) ◄─┘  auth: stop provider
//
// Every request ends in exactly one completion: a reply, or an LlmError (failures are data).
// A 429 with Retry-After also pauses new requests to that provider until the time it names.
// An auth failure fails every queued request of that provider at once, with the same message.
//
// Thread-safety: Submit, Prepare, TakeCompletions and Call may be called from any thread; the
// destructor stops the I/O thread and completes what is left as cancelled.

#include <deque>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/log.h"
#include "core/result.h"
#include "llm/chat.h"
#include "llm/ledger.h"
#include "llm/options.h"
#include "llm/provider.h"
#include "sys/unique_fd.h"

namespace adaexplore {

struct LlmCompletion {
  uint64_t id = 0;
  ChatRequest request;
  std::optional<ChatReply> reply;  // Set on success.
  std::optional<LlmError> error;   // Set on failure.
  CallSource source = CallSource::kLive;
  int attempts = 0;  // HTTP attempts made (0 for cache and replay).
  double latency_s = 0;
  std::optional<double> cost_usd;  // As the ledger priced it; nullopt when no price is known.
};

// A call that failed and waits to try again, as the status line says it ("retrying 3/8 in 4 s:
// HTTP 503").
struct LlmRetry {
  uint64_t id = 0;
  std::string task;   // The request's task ("" for calls of no task).
  std::string model;  // "provider/model".
  int attempt = 0;    // Attempts made so far.
  int max_attempts = 0;
  double wait_s = 0;  // Until the next attempt.
  std::string cause;  // "HTTP 503", or the network's error.
};

class LlmClient {
 public:
  // Opens the cache and the recording; starts the I/O thread. Providers are set up on first use
  // (or by Prepare), so a run that only replays needs no key.
  static Result<std::unique_ptr<LlmClient>> Create(LlmOptions options,
                                                   Logger logger = NullLogger());
  ~LlmClient();
  LlmClient(const LlmClient&) = delete;
  LlmClient& operator=(const LlmClient&) = delete;

  // Checks that `model` can be used: its key is set, its recording loads, a dollar budget has a
  // price for it. Call before a run starts so a missing key stops it before any work is done.
  Status Prepare(const ModelSpec& model);

  // Queues `request` and returns its id. Never blocks on the network.
  uint64_t Submit(ChatRequest request);

  const LlmOptions& options() const { return options_; }

  // Readable while completions are waiting.
  int wakeup_fd() const { return wakeup_.fd(); }

  // Every completion not yet taken.
  std::vector<LlmCompletion> TakeCompletions();

  // The retries scheduled since the last call (at most the newest kMaxRetryNotices). Each also
  // turns wakeup_fd() readable; take them after TakeCompletions, which drains it.
  std::vector<LlmRetry> TakeRetries();
  static constexpr size_t kMaxRetryNotices = 64;

  // Waits for the completion of request `id` and takes it. For one-shot commands and tests; do
  // not mix with TakeCompletions on the same client (it could take the completion first).
  LlmCompletion Wait(uint64_t id);

  // Submit, then Wait.
  LlmCompletion Call(ChatRequest request);

  const Ledger& ledger() const { return ledger_; }
  Ledger& ledger() { return ledger_; }

  // Test hook: the number of requests now on the wire.
  int TEST_InFlight() const;

 private:
  class Impl;

  LlmClient(LlmOptions options, Logger logger, EventFd wakeup);

  LlmOptions options_;
  Logger logger_;
  Ledger ledger_;
  EventFd wakeup_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace adaexplore
