#pragma once

// What LlmClient's I/O thread holds of a call (llm/client.cc): the call from Submit to its
// completion across its HTTP attempts, with the curl handles of the attempt on the wire, and the
// lane of each provider (its queue, what it has on the wire, a pause after a 429, a fatal error).
// Touched by the I/O thread only; internal to the llm library.

#include <curl/curl.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "core/clock.h"
#include "llm/chat.h"
#include "llm/provider.h"

namespace adaexplore {

// One request from Submit to its completion, across its HTTP attempts.
struct PendingCall {
  uint64_t id = 0;
  ChatRequest request;
  TimePoint submitted;
  int attempts = 0;
  const Provider* provider = nullptr;
  HttpRequest http;
  std::string cache_key;
  // One HTTP attempt: the easy handle, its header list, the reply body as it arrives.
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  std::string body;
  int64_t max_body = 0;
  bool too_large = false;
  char error_buffer[CURL_ERROR_SIZE] = {};
  TimePoint due;  // When a waiting retry may go.

  void ReleaseTransfer() {
    if (easy != nullptr) {
      curl_easy_cleanup(easy);
      easy = nullptr;
    }
    if (headers != nullptr) {
      curl_slist_free_all(headers);
      headers = nullptr;
    }
  }
  ~PendingCall() { ReleaseTransfer(); }
};

// curl's write callback for a PendingCall (`user`): keeps the body up to max_body, and aborts
// the transfer past it.
inline size_t AppendBody(char* data, size_t size, size_t count, void* user) {
  auto* call = static_cast<PendingCall*>(user);
  const size_t bytes = size * count;
  if (static_cast<int64_t>(call->body.size() + bytes) > call->max_body) {
    call->too_large = true;
    return 0;  // Aborts the transfer with CURLE_WRITE_ERROR.
  }
  call->body.append(data, bytes);
  return bytes;
}

// Requests for one provider: queued, on the wire, paused after a 429, or stopped for good.
struct ProviderLane {
  std::deque<std::unique_ptr<PendingCall>> pending;
  int in_flight = 0;
  int concurrency = 1;
  TimePoint paused_until;
  std::optional<LlmError> fatal;
  bool answered = false;  // An HTTP reply came from its endpoint this run (any status).
};

}  // namespace adaexplore
