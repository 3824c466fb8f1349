#include "store/result_cache.h"

#include <ctime>

#include "core/json_text.h"
#include "sys/fs.h"

namespace adaexplore {

Result<ResultCache> ResultCache::Open(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    RETURN_IF_ERROR(MakeDirectories(path.substr(0, slash)));
  }
  ASSIGN_OR_RETURN(Db db, Db::Open(path));
  RETURN_IF_ERROR(
      db.Execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                 "CREATE TABLE IF NOT EXISTS eval_results ("
                 "  key TEXT PRIMARY KEY, verdict TEXT NOT NULL, result TEXT NOT NULL,"
                 "  created_at INTEGER NOT NULL);"
                 "CREATE TABLE IF NOT EXISTS baselines ("
                 "  key TEXT PRIMARY KEY, result TEXT NOT NULL, created_at INTEGER NOT NULL);"));
  ASSIGN_OR_RETURN(Statement get, db.Prepare("SELECT value FROM meta WHERE key = 'schema'"));
  ASSIGN_OR_RETURN(bool found, get.Step());
  if (!found) {
    ASSIGN_OR_RETURN(Statement put, db.Prepare("INSERT INTO meta VALUES ('schema', ?)"));
    RETURN_IF_ERROR(put.Bind(1, std::to_string(kSchemaVersion)).Run());
  } else if (get.ColumnText(0) != std::to_string(kSchemaVersion)) {
    return InvalidArgument("result cache " + path + " has schema version " + get.ColumnText(0) +
                           ", this build reads version " + std::to_string(kSchemaVersion) +
                           " (use another --cache path)");
  }
  return ResultCache(std::move(db));
}

Result<std::optional<nlohmann::json>> ResultCache::Find(const std::string& key) {
  return FindIn("eval_results", key);
}

Result<std::optional<nlohmann::json>> ResultCache::FindBaseline(const std::string& key) {
  return FindIn("baselines", key);
}

Result<std::optional<nlohmann::json>> ResultCache::FindIn(const char* table,
                                                          const std::string& key) {
  ASSIGN_OR_RETURN(Statement get,
                   db_.Prepare(std::string("SELECT result FROM ") + table + " WHERE key = ?"));
  get.Bind(1, key);
  ASSIGN_OR_RETURN(bool found, get.Step());
  if (!found) {
    return std::optional<nlohmann::json>();
  }
  nlohmann::json parsed = nlohmann::json::parse(get.ColumnText(0), nullptr, false);
  if (parsed.is_discarded()) {
    return std::optional<nlohmann::json>();  // A damaged row is a miss, not an error.
  }
  return std::optional<nlohmann::json>(std::move(parsed));
}

Status ResultCache::Store(const std::string& key, const std::string& verdict,
                          const nlohmann::json& result) {
  ASSIGN_OR_RETURN(Statement put,
                   db_.Prepare("INSERT OR REPLACE INTO eval_results VALUES (?, ?, ?, ?)"));
  return put.Bind(1, key)
      .Bind(2, verdict)
      .Bind(3, JsonText(result))
      .Bind(4, static_cast<int64_t>(std::time(nullptr)))
      .Run();
}

Status ResultCache::StoreBaseline(const std::string& key, const nlohmann::json& baseline) {
  ASSIGN_OR_RETURN(Statement put, db_.Prepare("INSERT OR REPLACE INTO baselines VALUES (?, ?, ?)"));
  return put.Bind(1, key)
      .Bind(2, JsonText(baseline))
      .Bind(3, static_cast<int64_t>(std::time(nullptr)))
      .Run();
}

}  // namespace adaexplore
