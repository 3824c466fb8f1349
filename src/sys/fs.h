#pragma once

// Files: whole-file reads, atomic replacement, directories. std::filesystem errors are caught here
// and returned as Status.

#include <string>

#include "core/result.h"

namespace adaexplore {

Result<std::string> ReadFile(const std::string& path);

// Replaces `path` atomically: temp file beside it, fsync, rename, fsync the directory. A crash
// leaves either the old or the new content, never a torn file.
Status WriteFileAtomic(const std::string& path, std::string_view content);

// Creates `path` and its parents (mode 0755); an existing directory is fine.
Status MakeDirectories(const std::string& path);

// $XDG_CACHE_HOME/adaexplore, or ~/.cache/adaexplore.
std::string DefaultCacheDirectory();

// A fresh private directory under $TMPDIR (or /tmp) named "<prefix><pid>-XXXXXX", removed with
// its contents when the object dies. A process killed with SIGKILL cannot remove its own, so
// Create first removes those of the same prefix whose process is gone (unless released).
class TempDir {
 public:
  static Result<TempDir> Create(const std::string& prefix);
  TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  TempDir& operator=(TempDir&&) = delete;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();

  const std::string& path() const { return path_; }
  // Stops owning the directory: it stays on disk (kept for the user to read logs), marked so that
  // no later Create removes it.
  void Release();

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace adaexplore
