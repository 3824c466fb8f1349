#pragma once

// ResponseCache: LLM replies by CacheKey (recording.h) in SQLite, so a resumed or repeated run
// does not pay twice for the same call. A sampled call differs by its `sample` number, so a cache
// never makes repeated sampling return one answer. Used from the client's I/O thread only.

#include <optional>
#include <string>

#include "core/result.h"
#include "llm/chat.h"
#include "store/db.h"

namespace adaexplore {

class ResponseCache {
 public:
  static constexpr int kSchemaVersion = 1;

  static Result<ResponseCache> Open(const std::string& path);

  Result<std::optional<ChatReply>> Find(const std::string& key);
  Status Store(const std::string& key, const ModelSpec& model, const ChatReply& reply);

 private:
  explicit ResponseCache(Db db) : db_(std::move(db)) {}
  Db db_;
};

}  // namespace adaexplore
