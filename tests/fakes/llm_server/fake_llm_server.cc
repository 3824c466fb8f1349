#include "fake_llm_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <nlohmann/json.hpp>

#include "core/text.h"

namespace adaexplore {
namespace {

constexpr int kPollSliceMs = 20;
constexpr size_t kMaxHeaderBytes = 64 << 10;

const char* Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

bool SendAllNoSignal(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) {
      return false;
    }
    sent += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

Result<std::unique_ptr<FakeLlmServer>> FakeLlmServer::Start(FakeHandler handler) {
  UniqueFd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!listener.valid()) {
    return IoError("fake LLM server: socket failed");
  }
  int one = 1;
  ::setsockopt(listener.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  if (::bind(listener.get(), reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::listen(listener.get(), 512) != 0) {
    return IoError("fake LLM server: bind/listen on loopback failed");
  }
  socklen_t length = sizeof(address);
  ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&address), &length);
  ASSIGN_OR_RETURN(EventFd stop, EventFd::Create());
  std::unique_ptr<FakeLlmServer> server(new FakeLlmServer(
      std::move(handler), std::move(listener), ntohs(address.sin_port), std::move(stop)));
  server->acceptor_ = std::thread([s = server.get()] { s->AcceptLoop(); });
  return server;
}

FakeLlmServer::FakeLlmServer(FakeHandler handler, UniqueFd listener, int port, EventFd stop)
    : handler_(std::move(handler)),
      listener_(std::move(listener)),
      port_(port),
      stop_(std::move(stop)) {}

FakeLlmServer::~FakeLlmServer() {
  stopping_ = true;
  stop_.Notify();
  acceptor_.join();
  for (auto& connection : connections_) {
    connection->thread.join();
  }
}

std::vector<FakeHttpRequest> FakeLlmServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

void FakeLlmServer::AcceptLoop() {
  while (!stopping_) {
    pollfd fds[2] = {{listener_.get(), POLLIN, 0}, {stop_.fd(), POLLIN, 0}};
    if (::poll(fds, 2, -1) <= 0 || (fds[1].revents & POLLIN) != 0) {
      continue;
    }
    int fd = ::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      continue;
    }
    // Join connections that have finished, so a long benchmark does not pile up threads.
    std::erase_if(connections_, [](std::unique_ptr<Connection>& c) {
      if (c->done) {
        c->thread.join();
        return true;
      }
      return false;
    });
    auto connection = std::make_unique<Connection>();
    Connection* raw = connection.get();
    connection->thread = std::thread([this, fd, raw] {
      Serve(fd);
      raw->done = true;
    });
    connections_.push_back(std::move(connection));
  }
}

bool FakeLlmServer::Sleep(double seconds) const {
  using Duration = std::chrono::steady_clock::duration;
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<Duration>(std::chrono::duration<double>(seconds));
  const auto slice = std::chrono::milliseconds(5);  // How soon a stop is noticed.
  for (auto now = std::chrono::steady_clock::now(); now < until;
       now = std::chrono::steady_clock::now()) {
    if (stopping_) {
      return false;
    }
    std::this_thread::sleep_for(std::min<Duration>(slice, until - now));
  }
  return !stopping_;
}

void FakeLlmServer::Serve(int raw_fd) {
  UniqueFd fd(raw_fd);
  std::string buffer;
  while (!stopping_) {
    // Read one request: headers to the blank line, then Content-Length bytes of body.
    size_t header_end = std::string::npos;
    size_t need = 0;
    while (true) {
      header_end = buffer.find("\r\n\r\n");
      if (header_end != std::string::npos) {
        size_t at = Lower(buffer.substr(0, header_end)).find("content-length:");
        need =
            header_end + 4 + (at == std::string::npos ? 0 : std::stoul(buffer.substr(at + 15, 20)));
        if (buffer.size() >= need) {
          break;
        }
      } else if (buffer.size() > kMaxHeaderBytes) {
        return;
      }
      pollfd fds[2] = {{fd.get(), POLLIN, 0}, {stop_.fd(), POLLIN, 0}};
      if (::poll(fds, 2, kPollSliceMs) < 0 || (fds[1].revents & POLLIN) != 0) {
        return;
      }
      if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) == 0) {
        continue;
      }
      char chunk[16384];
      ssize_t n = ::recv(fd.get(), chunk, sizeof(chunk), 0);
      if (n <= 0) {
        return;  // The client closed the connection.
      }
      buffer.append(chunk, static_cast<size_t>(n));
    }
    FakeHttpRequest request;
    {
      std::string head = buffer.substr(0, header_end);
      size_t line_end = head.find("\r\n");
      std::string first = head.substr(0, line_end);
      request.method = first.substr(0, first.find(' '));
      size_t path_start = first.find(' ') + 1;
      request.path = first.substr(path_start, first.find(' ', path_start) - path_start);
      size_t at = line_end;
      while (at != std::string::npos && at < head.size()) {
        size_t next = head.find("\r\n", at + 2);
        std::string line =
            head.substr(at + 2, next == std::string::npos ? std::string::npos : next - at - 2);
        size_t colon = line.find(':');
        if (colon != std::string::npos) {
          request.headers[Lower(line.substr(0, colon))] = Trim(line.substr(colon + 1), " \t\r");
        }
        at = next;
      }
      request.body = buffer.substr(header_end + 4, need - header_end - 4);
      buffer.erase(0, need);
    }
    const int number = ++request_count_;
    const int active = ++active_;
    int peak = max_concurrent_.load();
    while (active > peak && !max_concurrent_.compare_exchange_weak(peak, active)) {
    }
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(request);
    }
    FakeReply reply = handler_(request, number);
    const bool slept = Sleep(reply.delay_s);
    --active_;
    if (!slept) {
      return;
    }
    if (reply.fault == FakeFault::kReset) {
      linger hard_close{1, 0};  // Close with RST, as a crashed proxy does.
      ::setsockopt(fd.get(), SOL_SOCKET, SO_LINGER, &hard_close, sizeof(hard_close));
      return;
    }
    std::string head = "HTTP/1.1 " + std::to_string(reply.status) + " " + Reason(reply.status) +
                       "\r\nContent-Type: " + reply.content_type +
                       "\r\nContent-Length: " + std::to_string(reply.body.size()) + "\r\n";
    for (const auto& [name, value] : reply.headers) {
      head += name + ": " + value + "\r\n";
    }
    head += "\r\n";
    if (reply.fault == FakeFault::kCloseAfterHeaders) {
      SendAllNoSignal(fd.get(), head);
      return;
    }
    if (reply.fault == FakeFault::kTruncateBody) {
      SendAllNoSignal(fd.get(), head + reply.body.substr(0, reply.truncate_at));
      return;
    }
    if (!SendAllNoSignal(fd.get(), head + reply.body)) {
      return;
    }
  }
}

std::string OpenAiChatBody(const std::string& text, int64_t prompt_tokens,
                           int64_t completion_tokens, int64_t cached_tokens,
                           const std::string& finish_reason) {
  nlohmann::json body = {{"id", "chatcmpl-fake"},
                         {"object", "chat.completion"},
                         {"model", "fake-model"},
                         {"choices",
                          {{{"index", 0},
                            {"message", {{"role", "assistant"}, {"content", text}}},
                            {"finish_reason", finish_reason}}}},
                         {"usage",
                          {{"prompt_tokens", prompt_tokens},
                           {"completion_tokens", completion_tokens},
                           {"total_tokens", prompt_tokens + completion_tokens},
                           {"prompt_tokens_details", {{"cached_tokens", cached_tokens}}}}}};
  return body.dump();
}

std::string AnthropicMessageBody(const std::string& text, int64_t input_tokens,
                                 int64_t output_tokens, int64_t cache_read_tokens) {
  nlohmann::json body = {
      {"id", "msg_fake"},
      {"type", "message"},
      {"role", "assistant"},
      {"model", "fake-claude"},
      {"content",
       {{{"type", "thinking"}, {"thinking", "scratch work"}}, {{"type", "text"}, {"text", text}}}},
      {"stop_reason", "end_turn"},
      {"usage",
       {{"input_tokens", input_tokens},
        {"output_tokens", output_tokens},
        {"cache_read_input_tokens", cache_read_tokens},
        {"cache_creation_input_tokens", 0}}}};
  return body.dump();
}

}  // namespace adaexplore
