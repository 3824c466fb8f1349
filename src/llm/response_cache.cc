#include "llm/response_cache.h"

#include <ctime>

#include "core/json_text.h"
#include "llm/recording.h"

namespace adaexplore {

Result<ResponseCache> ResponseCache::Open(const std::string& path) {
  ASSIGN_OR_RETURN(Db db, Db::Open(path));
  RETURN_IF_ERROR(db.Execute(
      "CREATE TABLE IF NOT EXISTS llm_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);"
      "INSERT OR IGNORE INTO llm_meta VALUES ('schema_version', '1');"
      "CREATE TABLE IF NOT EXISTS llm_responses (key TEXT PRIMARY KEY, model TEXT NOT NULL,"
      " reply TEXT NOT NULL, created_at INTEGER NOT NULL);"));
  ASSIGN_OR_RETURN(Statement version,
                   db.Prepare("SELECT value FROM llm_meta WHERE name = 'schema_version'"));
  ASSIGN_OR_RETURN(bool row, version.Step());
  if (row && version.ColumnText(0) != std::to_string(kSchemaVersion)) {
    return InvalidArgument(path + " holds an LLM cache of schema version " + version.ColumnText(0) +
                           "; this build reads version " + std::to_string(kSchemaVersion) +
                           " (use another cache path)");
  }
  return ResponseCache(std::move(db));
}

Result<std::optional<ChatReply>> ResponseCache::Find(const std::string& key) {
  ASSIGN_OR_RETURN(Statement select, db_.Prepare("SELECT reply FROM llm_responses WHERE key = ?"));
  select.Bind(1, key);
  ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) {
    return std::optional<ChatReply>();
  }
  nlohmann::json value =
      nlohmann::json::parse(select.ColumnText(0), nullptr, /*allow_exceptions=*/false);
  Result<ChatReply> reply = ReplyFromJson(value);
  if (!reply.ok()) {
    return std::optional<ChatReply>();  // A damaged row is a miss; the call is made again.
  }
  return std::optional<ChatReply>(*std::move(reply));
}

Status ResponseCache::Store(const std::string& key, const ModelSpec& model,
                            const ChatReply& reply) {
  ASSIGN_OR_RETURN(Statement insert,
                   db_.Prepare("INSERT OR REPLACE INTO llm_responses VALUES (?, ?, ?, ?)"));
  insert.Bind(1, key)
      .Bind(2, model.ToString())
      .Bind(3, JsonText(ReplyToJson(reply)))
      .Bind(4, static_cast<int64_t>(std::time(nullptr)));
  return insert.Run();
}

}  // namespace adaexplore
