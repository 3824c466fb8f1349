#include "adapt/skill_memory.h"

#include <fmt/format.h>

#include <cmath>
#include <ctime>
#include <fstream>

#include "core/text.h"

namespace adaexplore {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS memory_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT OR IGNORE INTO memory_meta VALUES ('schema_version', '1');
CREATE TABLE IF NOT EXISTS rules (
  id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL UNIQUE, count INTEGER NOT NULL,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS support (
  rule_id INTEGER NOT NULL REFERENCES rules(id), task TEXT NOT NULL, model TEXT NOT NULL,
  signature TEXT NOT NULL, source TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS support_rule ON support(rule_id);
)sql";

constexpr const char* kRuleColumns = "id, text, count, created_at, updated_at";

int64_t Now() { return static_cast<int64_t>(std::time(nullptr)); }

Rule ReadRule(const Statement& s) {
  return {.id = s.ColumnInt(0),
          .text = s.ColumnText(1),
          .count = s.ColumnInt(2),
          .created_at = s.ColumnInt(3),
          .updated_at = s.ColumnInt(4)};
}

// "34.0", "3", " 2 " -> the count; nullopt for anything else (negative, fractional, text).
std::optional<int64_t> ParseCount(std::string_view text) {
  const std::string s(Trim(text));
  char* end = nullptr;
  const double value = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(value) || value < 1 ||
      value != std::floor(value) || value > 1e12) {
    return std::nullopt;
  }
  return static_cast<int64_t>(value);
}

}  // namespace

bool IsSqliteFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char header[16] = {};
  in.read(header, sizeof(header));
  return in.gcount() == sizeof(header) && std::string_view(header, 15) == "SQLite format 3";
}

Result<SkillMemory> SkillMemory::Open(const std::string& path) {
  ASSIGN_OR_RETURN(Db db, Db::Open(path));
  RETURN_IF_ERROR(db.Execute(kSchema).WithContext("skill memory " + path));
  return SkillMemory(std::move(db));
}

Result<ImportStats> SkillMemory::ImportText(std::string_view text, const std::string& source) {
  ImportStats stats;
  const int64_t now = Now();
  const Status imported = InTransaction(db_, [&]() -> Status {
    ASSIGN_OR_RETURN(Statement upsert,
                     db_.Prepare("INSERT INTO rules (text, count, created_at, updated_at) "
                                 "VALUES (?, ?, ?, ?) ON CONFLICT(text) DO UPDATE SET "
                                 "count = count + excluded.count, updated_at = excluded.updated_at "
                                 "RETURNING id"));
    ASSIGN_OR_RETURN(Statement exists, db_.Prepare("SELECT 1 FROM rules WHERE text = ?"));
    ASSIGN_OR_RETURN(Statement support,
                     db_.Prepare("INSERT INTO support VALUES (?, '', '', '', ?, ?)"));
    int line_number = 0;
    for (std::string_view raw : SplitLines(text)) {
      const std::string_view line = Trim(raw);
      ++line_number;
      if (line.empty()) {
        continue;
      }
      ++stats.lines;
      std::string_view rule = line;
      int64_t count = 1;
      if (size_t bar = line.rfind("||"); bar != std::string_view::npos) {
        rule = Trim(line.substr(0, bar));
        std::optional<int64_t> parsed = ParseCount(line.substr(bar + 2));
        if (!parsed) {
          ++stats.skipped;
          stats.problems.push_back(
              fmt::format("line {}: the count after '||' is not a whole "
                          "number of at least 1",
                          line_number));
          continue;
        }
        count = *parsed;
      }
      if (rule.empty()) {
        ++stats.skipped;
        stats.problems.push_back(fmt::format("line {}: no rule before '||'", line_number));
        continue;
      }
      exists.Reset().Bind(1, rule);
      ASSIGN_OR_RETURN(bool known, exists.Step());
      (known ? stats.merged : stats.added) += 1;
      upsert.Reset().Bind(1, rule).Bind(2, count).Bind(3, now).Bind(4, now);
      ASSIGN_OR_RETURN(bool row, upsert.Step());
      if (!row) {
        return InternalError("rule upsert returned no row");
      }
      const int64_t id = upsert.ColumnInt(0);
      support.Reset()
          .Bind(1, id)
          .Bind(2, fmt::format("{} line {}", source, line_number))
          .Bind(3, now);
      RETURN_IF_ERROR(support.Run());
    }
    return Status::Ok();
  });
  if (!imported.ok()) {
    return imported;
  }
  return stats;
}

Result<std::string> SkillMemory::ExportText() {
  ASSIGN_OR_RETURN(std::vector<Rule> rules, List(0));
  std::string out;
  for (const Rule& rule : rules) {
    out += fmt::format("{}||{}\n", rule.text, rule.count);
  }
  return out;
}

Result<std::vector<Rule>> SkillMemory::List(int64_t min_count) {
  ASSIGN_OR_RETURN(Statement select,
                   db_.Prepare(fmt::format("SELECT {} FROM rules WHERE count >= ? "
                                           "ORDER BY count DESC, id ASC",
                                           kRuleColumns)));
  select.Bind(1, min_count);
  return ReadAll(select, ReadRule);
}

Result<Rule> SkillMemory::Get(int64_t id) {
  ASSIGN_OR_RETURN(Statement select,
                   db_.Prepare(fmt::format("SELECT {} FROM rules WHERE id = ?", kRuleColumns)));
  select.Bind(1, id);
  ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) {
    return NotFound(fmt::format("no rule {} in the memory", id));
  }
  return ReadRule(select);
}

Result<std::vector<RuleSupport>> SkillMemory::Support(int64_t id) {
  ASSIGN_OR_RETURN(Statement select,
                   db_.Prepare("SELECT task, model, signature, source FROM support "
                               "WHERE rule_id = ? ORDER BY rowid"));
  select.Bind(1, id);
  return ReadAll(select, [](const Statement& row) {
    return RuleSupport{.task = row.ColumnText(0),
                       .model = row.ColumnText(1),
                       .signature = row.ColumnText(2),
                       .source = row.ColumnText(3)};
  });
}

Status SkillMemory::AddSupport(int64_t id, const std::vector<RuleSupport>& support, int64_t now) {
  ASSIGN_OR_RETURN(Statement insert, db_.Prepare("INSERT INTO support VALUES (?, ?, ?, ?, ?, ?)"));
  for (const RuleSupport& s : support) {
    insert.Reset()
        .Bind(1, id)
        .Bind(2, s.task)
        .Bind(3, s.model)
        .Bind(4, s.signature)
        .Bind(5, s.source);
    insert.Bind(6, now);
    RETURN_IF_ERROR(insert.Run());
  }
  return Status::Ok();
}

Result<int64_t> SkillMemory::AddRule(const std::string& text,
                                     const std::vector<RuleSupport>& support) {
  const int64_t now = Now();
  const int64_t count = std::max<int64_t>(1, static_cast<int64_t>(support.size()));
  int64_t id = 0;
  const Status added = InTransaction(db_, [&]() -> Status {
    ASSIGN_OR_RETURN(Statement upsert,
                     db_.Prepare("INSERT INTO rules (text, count, created_at, updated_at) "
                                 "VALUES (?, ?, ?, ?) ON CONFLICT(text) DO UPDATE SET "
                                 "count = count + excluded.count, updated_at = excluded.updated_at "
                                 "RETURNING id"));
    upsert.Bind(1, text).Bind(2, count).Bind(3, now).Bind(4, now);
    ASSIGN_OR_RETURN(bool row, upsert.Step());
    if (!row) {
      return InternalError("rule insert returned no row");
    }
    id = upsert.ColumnInt(0);
    return AddSupport(id, support, now);
  });
  if (!added.ok()) {
    return added;
  }
  return id;
}

Status SkillMemory::Reinforce(int64_t id, const std::vector<RuleSupport>& support) {
  const int64_t now = Now();
  return InTransaction(db_, [&]() -> Status {
    ASSIGN_OR_RETURN(
        Statement update,
        db_.Prepare("UPDATE rules SET count = count + ?, updated_at = ? WHERE id = ?"));
    update.Bind(1, std::max<int64_t>(1, static_cast<int64_t>(support.size())))
        .Bind(2, now)
        .Bind(3, id);
    RETURN_IF_ERROR(update.Run());
    return AddSupport(id, support, now);
  });
}

Result<std::vector<std::string>> SkillMemory::PromptRules(const PromptRuleOptions& options) {
  ASSIGN_OR_RETURN(std::vector<Rule> rules, List(options.min_count));
  std::vector<std::string> texts;
  size_t chars = 0;
  for (const Rule& rule : rules) {
    if (texts.size() >= options.max_rules || chars + rule.text.size() > options.max_chars) {
      break;
    }
    chars += rule.text.size() + 1;
    texts.push_back(rule.text);
  }
  return texts;
}

}  // namespace adaexplore
