#pragma once

// One process at a time runs from a run database: `run` (new or resumed), `bench` and `adapt`
// take its lock before they open a session on it, so a second command on a database still in
// use refuses at once instead of racing the first to the same steps (two `bench`es resuming the
// same method, a `run --resume` of a run a bench is extending).
//
//   NewFileGuard created(db_path);
//   ASSIGN_OR_RETURN(RunDb db, RunDb::Open(db_path));
//   ASSIGN_OR_RETURN(FileLock lock, LockRunDatabase(db_path, created));

#include <string>

#include "core/result.h"
#include "sys/file_lock.h"
#include "sys/new_file_guard.h"

namespace adaexplore {

// The lock on `db_path` (its file is `db_path`.lock, held until the FileLock dies). Another
// process holding it is kUnavailable, naming the database and the holder. The lock file is
// `created`'s too: a command that fails before recording anything leaves neither behind.
Result<FileLock> LockRunDatabase(const std::string& db_path, NewFileGuard& created);

}  // namespace adaexplore
