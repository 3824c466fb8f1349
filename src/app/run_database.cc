#include "app/run_database.h"

#include <fmt/format.h>

namespace adaexplore {

Result<FileLock> LockRunDatabase(const std::string& db_path, NewFileGuard& created) {
  Result<FileLock> lock = FileLock::TryAcquire(db_path + ".lock");
  if (!lock.ok()) {
    return lock.status().code() == StatusCode::kUnavailable
               ? Unavailable(fmt::format("the run database {} is in use: {}; wait for that run to "
                                         "end (or stop it), or give this one another --db",
                                         db_path, lock.status().message()))
               : lock.status();
  }
  created.Also(db_path + ".lock");  // Ours now; released before the guard removes it.
  return lock;
}

}  // namespace adaexplore
