#pragma once

// UniqueFd owns one file descriptor: move-only, closed in its destructor, close never retried
// (on Linux the fd is gone even when close reports EINTR). Every fd this project opens is opened
// close-on-exec; a child gets exactly the fds SpawnOptions maps into it.

#include <string>
#include <string_view>
#include <utility>

#include "core/result.h"

namespace adaexplore {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { Reset(); }

  UniqueFd(UniqueFd&& other) noexcept : fd_(other.Release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      Reset(other.Release());
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

  // Closes the owned fd (if any) and takes `fd`.
  void Reset(int fd = -1);
  // Gives up ownership without closing.
  int Release() { return std::exchange(fd_, -1); }

 private:
  int fd_ = -1;
};

// A connected pair of Unix stream sockets, both close-on-exec.
Result<std::pair<UniqueFd, UniqueFd>> SocketPair();

Status SetNonBlocking(int fd);

// Opens `path` for appending (creating it 0644), close-on-exec.
Result<UniqueFd> OpenForAppend(const std::string& path);

// Writes all of `data` to a blocking fd, retrying short writes and EINTR.
Status WriteAll(int fd, std::string_view data);

// An eventfd used as a wakeup: any thread may Notify; the owner polls fd() for readability and
// calls Drain before looking at what it was woken for.
class EventFd {
 public:
  static Result<EventFd> Create();
  int fd() const { return fd_.get(); }
  void Notify() const;
  void Drain() const;

 private:
  explicit EventFd(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;
};

}  // namespace adaexplore
