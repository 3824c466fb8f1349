#include "sys/fs.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sys/errno_status.h"
#include "sys/unique_fd.h"

namespace adaexplore {
namespace {

Status WriteAll(int fd, std::string_view data, const std::string& what) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return ErrnoStatus("write " + what);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

}  // namespace

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      return NotFound("no such file: " + path);
    }
    return IoError("cannot open " + path);
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    return IoError("cannot read " + path);
  }
  return buffer.str();
}

namespace {

// The mode a plainly created file gets (0666 less the umask), read without changing the umask
// (umask() would, for an instant, for every thread). mkstemp creates 0600.
mode_t NewFileMode() {
  static const mode_t mode = [] {
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
      if (key == "Umask:") {
        std::string value;
        status >> value;
        return static_cast<mode_t>(0666 & ~std::stoul(value, nullptr, 8));
      }
      status.ignore(4096, '\n');
    }
    return static_cast<mode_t>(0644);
  }();
  return mode;
}

}  // namespace

Status WriteFileAtomic(const std::string& path, std::string_view content) {
  const std::filesystem::path target(path);
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
  std::string name = ".";  // Built by appends: GCC 12's -Wrestrict misfires on "." + string at -O3.
  name += target.filename().string();
  name += ".XXXXXX";
  std::string temp = std::filesystem::path(dir) / name;
  UniqueFd fd(::mkstemp(temp.data()));
  if (!fd.valid()) {
    return ErrnoStatus("mkstemp in " + dir);
  }
  Status written = WriteAll(fd.get(), content, temp);
  if (written.ok() && ::fchmod(fd.get(), NewFileMode()) != 0) {
    written = ErrnoStatus("chmod " + temp);
  }
  if (written.ok() && ::fsync(fd.get()) != 0) {
    written = ErrnoStatus("fsync " + temp);
  }
  fd.Reset();
  if (written.ok() && ::rename(temp.c_str(), path.c_str()) != 0) {
    written = ErrnoStatus("rename to " + path);
  }
  if (!written.ok()) {
    ::unlink(temp.c_str());
    return written;
  }
  UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir_fd.valid()) {
    ::fsync(dir_fd.get());  // Makes the rename durable; best effort on filesystems without it.
  }
  return Status::Ok();
}

Status MakeDirectories(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) {
    return IoError("creating directory " + path + ": " + ec.message());
  }
  return Status::Ok();
}

namespace {

constexpr const char* kKeepMarker = ".kept";

// Removes base/<prefix><pid>-* folders whose process no longer exists. A live process of
// another user (EPERM) and a folder we cannot remove are left alone.
void RemoveScratchOfDeadProcesses(const std::string& base, const std::string& prefix) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(base, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix) || !entry.is_directory(ec)) {
      continue;
    }
    const std::string rest = name.substr(prefix.size());
    const size_t dash = rest.find('-');
    if (dash == 0 || dash == std::string::npos || rest.find_first_not_of("0123456789") != dash) {
      continue;  // Not one of ours (an older name, another tool's).
    }
    const long pid = std::strtol(rest.substr(0, dash).c_str(), nullptr, 10);
    if (pid <= 0 || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH ||
        std::filesystem::exists(entry.path() / kKeepMarker, ec)) {
      continue;
    }
    std::filesystem::remove_all(entry.path(), ec);
  }
}

}  // namespace

Result<TempDir> TempDir::Create(const std::string& prefix) {
  const char* env = std::getenv("TMPDIR");
  const std::string base = env != nullptr && *env != '\0' ? env : "/tmp";
  RemoveScratchOfDeadProcesses(base, prefix);
  std::string pattern = base + "/" + prefix + std::to_string(::getpid()) + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    return ErrnoStatus("mkdtemp " + pattern);
  }
  return TempDir(pattern);
}

void TempDir::Release() {
  if (!path_.empty()) {
    (void)WriteFileAtomic(path_ + "/" + kKeepMarker, "kept for its logs\n");
    path_.clear();
  }
}

TempDir::~TempDir() {
  if (!path_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);  // Best effort: nothing useful to do on failure.
  }
}

std::string DefaultCacheDirectory() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && *xdg != '\0') {
    return std::string(xdg) + "/adaexplore";
  }
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr && *home != '\0' ? home : "/tmp") + "/.cache/adaexplore";
}

}  // namespace adaexplore
