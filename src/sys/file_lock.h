#pragma once

// FileLock: an exclusive advisory lock (flock) on a file, held while the object lives, so that one
// process at a time owns what the file guards (a run database). The kernel drops it when the
// process dies, however it dies: a killed run never leaves a stale lock. The holder writes its
// pid into the file, for the message the next process gets.

#include <string>

#include "core/result.h"
#include "sys/unique_fd.h"

namespace adaexplore {

class FileLock {
 public:
  // Takes the lock on `path` (created 0644) at once, without waiting. kUnavailable, naming the
  // holder's pid, when another process holds it.
  static Result<FileLock> TryAcquire(const std::string& path);

  const std::string& path() const { return path_; }

 private:
  FileLock(std::string path, UniqueFd fd) : path_(std::move(path)), fd_(std::move(fd)) {}

  std::string path_;
  UniqueFd fd_;
};

}  // namespace adaexplore
