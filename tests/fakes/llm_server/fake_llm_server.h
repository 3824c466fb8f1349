#pragma once

// FakeLlmServer: a real HTTP/1.1 server on loopback for tests and benchmarks of the LLM layer.
// A handler scripts each reply (status, headers, body, delay) and can inject the faults real
// providers and networks produce: connection resets, truncated bodies, stalls past any timeout,
// wrong content types, huge bodies. One thread per connection (keep-alive honoured); the
// destructor stops everything, including handlers sleeping in a delay, and joins.
//
// Example:
//   auto server = FakeLlmServer::Start([](const FakeHttpRequest& r, int n) {
//     return n == 1 ? FakeReply{.status = 429, .headers = {{"Retry-After", "1"}}}
//                   : FakeReply{.body = OpenAiChatBody("hello", 10, 2)};
//   });
//   settings.base_url = (*server)->base_url();

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/result.h"
#include "sys/unique_fd.h"

namespace adaexplore {

struct FakeHttpRequest {
  std::string method;
  std::string path;
  std::map<std::string, std::string> headers;  // Names lower-cased.
  std::string body;
};

enum class FakeFault {
  kNone,
  kReset,              // Read the request, then reset the connection (RST) without a reply.
  kTruncateBody,       // Promise the whole body in Content-Length, send `truncate_at` bytes, close.
  kCloseAfterHeaders,  // Send status and headers, then close.
};

struct FakeReply {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  double delay_s = 0;  // Before anything is sent.
  FakeFault fault = FakeFault::kNone;
  size_t truncate_at = 0;
};

// Called for each request with its 1-based number across the server's life. Called on
// connection threads, concurrently: keep handlers thread-safe.
using FakeHandler = std::function<FakeReply(const FakeHttpRequest& request, int number)>;

class FakeLlmServer {
 public:
  static Result<std::unique_ptr<FakeLlmServer>> Start(FakeHandler handler);
  ~FakeLlmServer();

  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int request_count() const { return request_count_.load(); }
  int max_concurrent() const { return max_concurrent_.load(); }  // Peak requests being handled.
  std::vector<FakeHttpRequest> requests() const;                  // Every request, in order.

 private:
  struct Connection {
    std::thread thread;
    std::atomic<bool> done = false;
  };

  FakeLlmServer(FakeHandler handler, UniqueFd listener, int port, EventFd stop);
  void AcceptLoop();
  void Serve(int fd);
  bool Sleep(double seconds) const;  // False when the server is stopping.

  FakeHandler handler_;
  UniqueFd listener_;
  int port_ = 0;
  EventFd stop_;
  std::atomic<bool> stopping_ = false;
  std::atomic<int> request_count_ = 0;
  std::atomic<int> active_ = 0;
  std::atomic<int> max_concurrent_ = 0;
  mutable std::mutex mutex_;
  std::vector<FakeHttpRequest> requests_;                 // Guarded by mutex_.
  std::vector<std::unique_ptr<Connection>> connections_;  // Accept thread only.
  std::thread acceptor_;
};

// A Chat Completions reply body.
std::string OpenAiChatBody(const std::string& text, int64_t prompt_tokens,
                           int64_t completion_tokens, int64_t cached_tokens = 0,
                           const std::string& finish_reason = "stop");

// An Anthropic Messages reply body.
std::string AnthropicMessageBody(const std::string& text, int64_t input_tokens,
                                 int64_t output_tokens, int64_t cache_read_tokens = 0);

}  // namespace adaexplore
