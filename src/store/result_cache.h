#pragma once

// ResultCache: evaluation results keyed by content hash (task source, candidate source, profile,
// device and software fingerprint), in SQLite, and beside them the tasks' baseline timings (see
// eval/baseline.h), keyed the same way. A key seen before is answered without running anything. The
// schema carries a version; an unknown newer version is refused, not overwritten.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/result.h"
#include "store/db.h"

namespace adaexplore {

class ResultCache {
 public:
  static constexpr int kSchemaVersion = 1;

  static Result<ResultCache> Open(const std::string& path);

  // The stored result JSON for `key`, if any.
  Result<std::optional<nlohmann::json>> Find(const std::string& key);
  Status Store(const std::string& key, const std::string& verdict, const nlohmann::json& result);

  Result<std::optional<nlohmann::json>> FindBaseline(const std::string& key);
  Status StoreBaseline(const std::string& key, const nlohmann::json& baseline);

 private:
  explicit ResultCache(Db db) : db_(std::move(db)) {}
  Result<std::optional<nlohmann::json>> FindIn(const char* table, const std::string& key);
  Db db_;
};

}  // namespace adaexplore
