#include "sys/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <string_view>

#include "sys/errno_status.h"

namespace adaexplore {

Result<FileLock> FileLock::TryAcquire(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid()) {
    return ErrnoStatus("opening the lock file " + path);
  }
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) {
      return ErrnoStatus("locking " + path);
    }
    std::array<char, 32> pid{};
    const ssize_t n = ::pread(fd.get(), pid.data(), pid.size() - 1, 0);
    const std::string holder = n > 0 ? std::string(pid.data(), static_cast<size_t>(n)) : "?";
    return Unavailable("another process (pid " + holder + ") holds " + path);
  }
  const std::string pid = std::to_string(::getpid());
  if (::ftruncate(fd.get(), 0) != 0) {
    return ErrnoStatus("writing " + path);
  }
  RETURN_IF_ERROR(WriteAll(fd.get(), pid));
  return FileLock(path, std::move(fd));
}

}  // namespace adaexplore
