#pragma once

// A file a command may create (its run database, its memory file): removed, with SQLite's -wal,
// -shm and -journal files beside it and the files named by Also, when the guard dies unless the
// command kept it. A command that fails
// before it has recorded anything leaves nothing behind; a file that existed before is never
// touched.

#include <string>
#include <vector>

namespace adaexplore {

class NewFileGuard {
 public:
  explicit NewFileGuard(std::string path);
  NewFileGuard(const NewFileGuard&) = delete;
  NewFileGuard& operator=(const NewFileGuard&) = delete;
  ~NewFileGuard();

  // The command has recorded something: the file stays, whatever happens next.
  void Keep() { keep_ = true; }
  // Another file the command made for this one (its lock, once held): removed with it.
  void Also(std::string path) { also_.push_back(std::move(path)); }

 private:
  std::string path_;
  std::vector<std::string> also_;
  bool keep_;  // True from the start when the file already existed.
};

}  // namespace adaexplore
