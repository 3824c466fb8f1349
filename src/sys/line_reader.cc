#include "sys/line_reader.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>

#include "core/clock.h"
#include "sys/errno_status.h"

namespace adaexplore {

Status LineReader::Feed(std::string_view bytes, std::vector<std::string>& lines) {
  size_t start = 0;
  while (start < bytes.size()) {
    const size_t newline = bytes.find('\n', start);
    if (newline == std::string_view::npos) {
      buffer_.append(bytes.substr(start));
      break;
    }
    buffer_.append(bytes.substr(start, newline - start));
    lines.push_back(std::move(buffer_));
    buffer_.clear();
    start = newline + 1;
  }
  if (buffer_.size() > max_line_) {
    return ProtocolError("line longer than " + std::to_string(max_line_) + " bytes");
  }
  return Status::Ok();
}

Result<LineReader::State> LineReader::ReadAvailable(int fd, std::vector<std::string>& lines) {
  std::array<char, 65536> chunk{};
  while (true) {
    const ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n > 0) {
      RETURN_IF_ERROR(Feed(std::string_view(chunk.data(), static_cast<size_t>(n)), lines));
      continue;
    }
    if (n == 0) {
      return State::kEof;
    }
    if (errno == EINTR) {
      continue;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      return State::kOpen;
    }
    if (errno == ECONNRESET) {
      return State::kEof;
    }
    return ErrnoStatus("read");
  }
}

Status SendAll(int fd, std::string_view data, int timeout_ms) {
  const TimePoint deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n >= 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (errno == EINTR) {
      continue;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      return ErrnoStatus("send");
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      return TimeoutError("peer did not read within " + std::to_string(timeout_ms) + " ms");
    }
    pollfd p{fd, POLLOUT, 0};
    ::poll(&p, 1, static_cast<int>(left.count()));
  }
  return Status::Ok();
}

}  // namespace adaexplore
