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
  std::error_code ec;  // Best effort: nothing to do on failure.
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::filesystem::remove(path_ + suffix, ec);
  }
  for (const std::string& path : also_) {
    std::filesystem::remove(path, ec);
  }
}

}  // namespace adaexplore
