#include "store/db.h"

namespace adaexplore {
namespace {

constexpr int kBusyTimeoutMs = 10'000;

Status SqliteError(sqlite3* db, const std::string& what) {
  return IoError(what + ": " + (db != nullptr ? sqlite3_errmsg(db) : "out of memory"));
}

}  // namespace

Result<Db> Db::Open(const std::string& path) {
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK) {
    return SqliteError(raw, "opening " + path);
  }
  sqlite3_busy_timeout(raw, kBusyTimeoutMs);
  RETURN_IF_ERROR(db.Execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"));
  return db;
}

Status Db::Execute(std::string_view sql) {
  char* error = nullptr;
  const int rc = sqlite3_exec(db_.get(), std::string(sql).c_str(), nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    std::string message = error != nullptr ? error : "unknown error";
    sqlite3_free(error);
    return IoError("sqlite: " + message);
  }
  return Status::Ok();
}

Result<Statement> Db::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_.get(), sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) !=
      SQLITE_OK) {
    return SqliteError(db_.get(), "preparing SQL");
  }
  return Statement(db_.get(), stmt);
}

Statement& Statement::Bind(int index, std::string_view text) {
  if (sqlite3_bind_text(stmt_.get(), index, text.data(), static_cast<int>(text.size()),
                        SQLITE_TRANSIENT) != SQLITE_OK) {
    bind_error_ = SqliteError(db_, "binding text");
  }
  return *this;
}

Statement& Statement::Bind(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_.get(), index, value) != SQLITE_OK) {
    bind_error_ = SqliteError(db_, "binding integer");
  }
  return *this;
}

Statement& Statement::Bind(int index, double value) {
  if (sqlite3_bind_double(stmt_.get(), index, value) != SQLITE_OK) {
    bind_error_ = SqliteError(db_, "binding real");
  }
  return *this;
}

Result<bool> Statement::Step() {
  RETURN_IF_ERROR(bind_error_);
  const int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) {
    return true;
  }
  if (rc == SQLITE_DONE) {
    return false;
  }
  return SqliteError(db_, "executing SQL");
}

Statement& Statement::Reset() {
  sqlite3_reset(stmt_.get());  // Returns the last step's error, which Step already reported.
  bind_error_ = Status::Ok();
  return *this;
}

Status Statement::Run() {
  while (true) {
    ASSIGN_OR_RETURN(bool row, Step());
    if (!row) {
      return Status::Ok();
    }
  }
}

std::string Statement::ColumnText(int index) const {
  const unsigned char* text = sqlite3_column_text(stmt_.get(), index);
  return text != nullptr ? reinterpret_cast<const char*>(text) : "";
}

int64_t Statement::ColumnInt(int index) const { return sqlite3_column_int64(stmt_.get(), index); }

double Statement::ColumnDouble(int index) const {
  return sqlite3_column_double(stmt_.get(), index);
}

bool Statement::ColumnIsNull(int index) const {
  return sqlite3_column_type(stmt_.get(), index) == SQLITE_NULL;
}

}  // namespace adaexplore
