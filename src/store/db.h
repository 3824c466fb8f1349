#pragma once

// A thin owning wrapper over SQLite: Db owns the connection, Statement a prepared statement, both
// released by custom deleters. Errors come back as Status with SQLite's message. Single-threaded
// use per Db (SQLite's serialized mode protects the handle, but statements are not shared).

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/result.h"

namespace adaexplore {

class Statement {
 public:
  Statement(Statement&&) = default;
  Statement& operator=(Statement&&) = default;

  Statement& Bind(int index, std::string_view text);
  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, double value);

  // Advances; true while a row is available.
  Result<bool> Step();
  // Runs to completion (for statements without rows).
  Status Run();
  // Back to the start, keeping the bindings, so the statement can be bound and run again.
  Statement& Reset();

  std::string ColumnText(int index) const;
  int64_t ColumnInt(int index) const;
  double ColumnDouble(int index) const;
  bool ColumnIsNull(int index) const;

 private:
  friend class Db;
  struct Finalizer {
    void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
  };
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  sqlite3* db_;
  std::unique_ptr<sqlite3_stmt, Finalizer> stmt_;
  Status bind_error_;
};

class Db {
 public:
  // Opens (creating) the database at `path`, in WAL mode with a busy timeout, so several
  // adaexplore processes can share one cache file.
  static Result<Db> Open(const std::string& path);

  Status Execute(std::string_view sql);
  Result<Statement> Prepare(std::string_view sql);

 private:
  struct Closer {
    void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
  };
  explicit Db(sqlite3* db) : db_(db) {}
  std::unique_ptr<sqlite3, Closer> db_;
};

// Steps `select` to the end, turning each row into a value with `read(const Statement&)`.
template <typename Read>
auto ReadAll(Statement& select, Read read)
    -> Result<std::vector<std::invoke_result_t<Read, const Statement&>>> {
  std::vector<std::invoke_result_t<Read, const Statement&>> rows;
  while (true) {
    ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) {
      return rows;
    }
    rows.push_back(read(select));
  }
}

// Runs `body` (returning Status) inside BEGIN IMMEDIATE ... COMMIT, rolling back on any error.
template <typename Body>
Status InTransaction(Db& db, Body body) {
  RETURN_IF_ERROR(db.Execute("BEGIN IMMEDIATE"));
  Status status = body();
  if (!status.ok()) {
    (void)db.Execute("ROLLBACK");  // The error that matters is `status`.
    return status;
  }
  return db.Execute("COMMIT");
}

}  // namespace adaexplore
