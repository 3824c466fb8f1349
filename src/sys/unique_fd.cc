#include "sys/unique_fd.h"

#include <fcntl.h>
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

}  // namespace adaexplore
