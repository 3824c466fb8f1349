#include "sys/unique_fd.h"

#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "sys/errno_status.h"

namespace adaexplore {

void UniqueFd::Reset(int fd) {
  if (fd_ >= 0) {
    ::close(fd_);  // Never retried: on Linux the descriptor is released even on EINTR.
  }
  fd_ = fd;
}

Result<std::pair<UniqueFd, UniqueFd>> SocketPair() {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return ErrnoStatus("socketpair");
  }
  return std::make_pair(UniqueFd(fds[0]), UniqueFd(fds[1]));
}

Status SetNonBlocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    return ErrnoStatus("fcntl(O_NONBLOCK)");
  }
  return Status::Ok();
}

Result<UniqueFd> OpenForAppend(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    return ErrnoStatus("open " + path);
  }
  return UniqueFd(fd);
}

Status WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t written = ::write(fd, data.data(), data.size());
    if (written < 0) {
      if (errno == EINTR) {
        continue;
      }
      return ErrnoStatus("write");
    }
    data.remove_prefix(static_cast<size_t>(written));
  }
  return Status::Ok();
}

Result<EventFd> EventFd::Create() {
  const int fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0) {
    return ErrnoStatus("eventfd");
  }
  return EventFd(UniqueFd(fd));
}

void EventFd::Notify() const {
  const uint64_t one = 1;
  // Fails only when the counter would overflow, which means a wakeup is pending anyway.
  [[maybe_unused]] ssize_t ignored = ::write(fd_.get(), &one, sizeof(one));
}

void EventFd::Drain() const {
  uint64_t count = 0;
  [[maybe_unused]] ssize_t ignored = ::read(fd_.get(), &count, sizeof(count));
}

}  // namespace adaexplore
