#include "sys/new_file_guard.h"

#include <filesystem>
#include <system_error>

namespace adaexplore {

NewFileGuard::NewFileGuard(std::string path)
    : path_(std::move(path)), keep_(path_.empty() || std::filesystem::exists(path_)) {}

NewFileGuard::~NewFileGuard() {
  if (keep_) {
    return;
  }
  for (const char* suffix : {"", "-wal", "-shm", "-journal", ".lock"}) {
    std::error_code ec;
    std::filesystem::remove(path_ + suffix, ec);  // Best effort: nothing to do on failure.
  }
}

}  // namespace adaexplore
