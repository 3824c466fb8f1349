#include "store/run_db.h"

#include <fmt/format.h>

#include <array>
#include <ctime>

#include "core/json_text.h"
#include "core/saturating.h"
#include "store/stored_json.h"

namespace adaexplore {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS run_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT OR IGNORE INTO run_meta VALUES ('schema_version', '2');
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT, method TEXT NOT NULL, model TEXT NOT NULL,
  status TEXT NOT NULL, options TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (
  run_id INTEGER NOT NULL REFERENCES runs(id), name TEXT NOT NULL, source TEXT NOT NULL,
  steps INTEGER NOT NULL, status TEXT NOT NULL, PRIMARY KEY (run_id, name));
CREATE TABLE IF NOT EXISTS task_files (
  run_id INTEGER NOT NULL, name TEXT NOT NULL, file TEXT NOT NULL, PRIMARY KEY (run_id, name));
CREATE TABLE IF NOT EXISTS nodes (
  run_id INTEGER NOT NULL, task TEXT NOT NULL, node INTEGER NOT NULL, parent INTEGER NOT NULL,
  move TEXT NOT NULL, context TEXT NOT NULL, kernel TEXT NOT NULL, verdict TEXT NOT NULL,
  reason TEXT NOT NULL, compiled INTEGER NOT NULL, correct INTEGER NOT NULL, speedup REAL,
  result TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (run_id, task, node));
CREATE TABLE IF NOT EXISTS llm_calls (
  run_id INTEGER NOT NULL, task TEXT NOT NULL, node INTEGER NOT NULL, seq INTEGER NOT NULL,
  role TEXT NOT NULL, messages TEXT NOT NULL, reply TEXT NOT NULL, error TEXT NOT NULL,
  usage TEXT NOT NULL, cost_usd REAL, latency_s REAL NOT NULL, attempts INTEGER NOT NULL,
  source TEXT NOT NULL, model TEXT NOT NULL DEFAULT '', PRIMARY KEY (run_id, task, node, seq));
CREATE TABLE IF NOT EXISTS llm_call_costs (
  id INTEGER PRIMARY KEY AUTOINCREMENT, run_id INTEGER NOT NULL, task TEXT NOT NULL,
  node INTEGER NOT NULL, role TEXT NOT NULL, source TEXT NOT NULL, error TEXT NOT NULL,
  usage TEXT NOT NULL, cost_usd REAL, recorded_at INTEGER NOT NULL,
  model TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS baselines (
  key TEXT PRIMARY KEY, task TEXT NOT NULL, task_sha256 TEXT NOT NULL, profile TEXT NOT NULL,
  result TEXT NOT NULL, recorded_at INTEGER NOT NULL);
)sql";

// Version 1 to 2: each call's model (a role may have its own, llm/role_models.h); a call of a
// version-1 database keeps '' there, which reads as its run's model. A table that version-1 build
// lacked was just made by kSchema, with the column.
Status ToVersion2(Db& db) {
  for (const char* table : {"llm_calls", "llm_call_costs"}) {
    ASSIGN_OR_RETURN(
        Statement has,
        db.Prepare(fmt::format("SELECT count(*) FROM pragma_table_info('{}') WHERE name = 'model'",
                               table)));
    ASSIGN_OR_RETURN(bool row, has.Step());
    if (row && has.ColumnInt(0) == 0) {
      RETURN_IF_ERROR(db.Execute(
          fmt::format("ALTER TABLE {} ADD COLUMN model TEXT NOT NULL DEFAULT ''", table)));
    }
  }
  return db.Execute("UPDATE run_meta SET value = '2' WHERE name = 'schema_version'");
}

std::string Dump(const nlohmann::json& value) { return JsonText(value); }

// What a JSON column must hold; anything else is a database this build cannot read.
enum class JsonKind { kObject, kArray, kObjectOrNull };

// Column `column` of the current row of `select`, parsed and checked against `kind`; an error
// naming `row` and `name` when it is not valid JSON or not of that kind.
Result<nlohmann::json> JsonColumn(const Statement& select, int column, std::string_view name,
                                  JsonKind kind, const std::string& row) {
  if (kind == JsonKind::kObjectOrNull && select.ColumnIsNull(column)) {
    return nlohmann::json();  // A LEFT JOIN that found no row.
  }
  nlohmann::json value;
  try {
    value = nlohmann::json::parse(select.ColumnText(column));
  } catch (const nlohmann::json::parse_error& e) {
    return ParseError(
        fmt::format("run database: {}: column '{}' is not valid JSON: {}", row, name, e.what()));
  }
  const bool fits = kind == JsonKind::kArray
                        ? value.is_array()
                        : value.is_object() || (kind == JsonKind::kObjectOrNull && value.is_null());
  if (!fits) {
    return StoredJsonError(row, name,
                           fmt::format("holds a JSON {} where {} belongs", value.type_name(),
                                       kind == JsonKind::kArray ? "an array" : "an object"));
  }
  return value;
}

// SQL for the total of the usage count at `path` over the calls a query selects, 0 where the
// usage is not valid JSON or the count is not an integer (a damaged row must not stop a report;
// reading its step says what is wrong with it).
std::string UsageSum(std::string_view path) {
  return fmt::format(
      "total(CASE WHEN json_valid(usage) THEN (CASE WHEN json_type(usage, '{0}') = 'integer' "
      "THEN json_extract(usage, '{0}') ELSE 0 END) ELSE 0 END)",
      path);
}

int64_t Now() { return static_cast<int64_t>(std::time(nullptr)); }

// Runs an INSERT ... RETURNING id into `table` to its end and gives the id.
Result<int64_t> InsertedId(Statement& insert, std::string_view table) {
  ASSIGN_OR_RETURN(bool row, insert.Step());
  if (!row) {
    return InternalError(fmt::format("INSERT INTO {} returned no id", table));
  }
  const int64_t id = insert.ColumnInt(0);
  ASSIGN_OR_RETURN(bool more, insert.Step());  // Finishes the statement.
  (void)more;
  return id;
}

// A status column: a name this build does not know is a database from another version.
Result<WorkStatus> StatusColumn(Statement& select, int column) {
  const std::string name = select.ColumnText(column);
  if (std::optional<WorkStatus> status = ParseWorkStatus(name)) {
    return *status;
  }
  return ParseError("the run database holds an unknown status '" + name + "'");
}

Result<std::optional<RunInfo>> ReadRun(Statement& select) {
  ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) {
    return std::optional<RunInfo>();
  }
  ASSIGN_OR_RETURN(WorkStatus status, StatusColumn(select, 3));
  const int64_t id = select.ColumnInt(0);
  ASSIGN_OR_RETURN(nlohmann::json options,
                   JsonColumn(select, 4, "options", JsonKind::kObject, RunsRow(id)));
  return std::optional<RunInfo>(RunInfo{.id = id,
                                        .method = select.ColumnText(1),
                                        .model = select.ColumnText(2),
                                        .status = status,
                                        .options = std::move(options),
                                        .created_at = select.ColumnInt(5)});
}

}  // namespace

Result<RunDb> RunDb::Open(const std::string& path) {
  ASSIGN_OR_RETURN(Db db, Db::Open(path));
  RETURN_IF_ERROR(db.Execute(kSchema));
  ASSIGN_OR_RETURN(Statement version,
                   db.Prepare("SELECT value FROM run_meta WHERE name = 'schema_version'"));
  ASSIGN_OR_RETURN(bool row, version.Step());
  if (row && version.ColumnText(0) == "1") {
    RETURN_IF_ERROR(
        InTransaction(db, [&] {
          return ToVersion2(db);
        }).WithContext(fmt::format("{}: bringing the run database to version 2", path)));
    return RunDb(std::move(db));
  }
  if (row && version.ColumnText(0) != std::to_string(kSchemaVersion)) {
    return InvalidArgument(
        fmt::format("{} is a run database of schema version {}; this build "
                    "reads version {}",
                    path, version.ColumnText(0), kSchemaVersion));
  }
  return RunDb(std::move(db));
}

Result<int64_t> RunDb::CreateRun(const RunInfo& run) {
  ASSIGN_OR_RETURN(Statement insert,
                   db_.Prepare("INSERT INTO runs (method, model, status, options, created_at) "
                               "VALUES (?, ?, ?, ?, ?) RETURNING id"));
  insert.Bind(1, run.method)
      .Bind(2, run.model)
      .Bind(3, WorkStatusName(run.status))
      .Bind(4, Dump(run.options));
  insert.Bind(5, run.created_at != 0 ? run.created_at : Now());
  return InsertedId(insert, "runs");
}

Result<std::optional<RunInfo>> RunDb::FindRun(int64_t id) {
  ASSIGN_OR_RETURN(Statement select,
                   db_.Prepare("SELECT id, method, model, status, options, created_at FROM runs "
                               "WHERE id = ?"));
  select.Bind(1, id);
  return ReadRun(select);
}

Result<std::optional<RunInfo>> RunDb::LatestRun() {
  ASSIGN_OR_RETURN(Statement select,
                   db_.Prepare("SELECT id, method, model, status, options, created_at FROM runs "
                               "ORDER BY id DESC LIMIT 1"));
  return ReadRun(select);
}

Result<std::vector<RunInfo>> RunDb::Runs() {
  ASSIGN_OR_RETURN(Statement select,
                   db_.Prepare("SELECT id, method, model, status, options, created_at FROM runs "
                               "ORDER BY id"));
  std::vector<RunInfo> runs;
  while (true) {
    ASSIGN_OR_RETURN(std::optional<RunInfo> run, ReadRun(select));
    if (!run) {
      return runs;
    }
    runs.push_back(*std::move(run));
  }
}

Status RunDb::SetRunStatus(int64_t run, WorkStatus status) {
  ASSIGN_OR_RETURN(Statement update, db_.Prepare("UPDATE runs SET status = ? WHERE id = ?"));
  update.Bind(1, WorkStatusName(status)).Bind(2, run);
  return update.Run();
}

Status RunDb::ExtendRun(int64_t run, int steps) {
  ASSIGN_OR_RETURN(std::optional<RunInfo> info, FindRun(run));
  if (!info) {
    return NotFound(fmt::format("no run {}", run));
  }
  info->options["steps"] = steps;
  ASSIGN_OR_RETURN(Statement update_run,
                   db_.Prepare("UPDATE runs SET options = ?, status = ? WHERE id = ?"));
  update_run.Bind(1, Dump(info->options))
      .Bind(2, WorkStatusName(WorkStatus::kRunning))
      .Bind(3, run);
  RETURN_IF_ERROR(update_run.Run());
  ASSIGN_OR_RETURN(
      Statement update_tasks,
      db_.Prepare("UPDATE tasks SET steps = MAX(steps, ?), status = ? WHERE run_id = ?"));
  update_tasks.Bind(1, int64_t{steps}).Bind(2, WorkStatusName(WorkStatus::kRunning)).Bind(3, run);
  return update_tasks.Run();
}

Status RunDb::AddTask(int64_t run, const TaskInfo& task) {
  ASSIGN_OR_RETURN(Statement select,
                   db_.Prepare("SELECT source FROM tasks WHERE run_id = ? AND name = ?"));
  select.Bind(1, run).Bind(2, task.name);
  ASSIGN_OR_RETURN(bool row, select.Step());
  if (row) {
    if (select.ColumnText(0) != task.source) {
      return InvalidArgument(fmt::format(
          "task {} has changed since run {} started; resume it with the original file or start "
          "a new run",
          task.name, run));
    }
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(Statement insert, db_.Prepare("INSERT INTO tasks VALUES (?, ?, ?, ?, ?)"));
  insert.Bind(1, run).Bind(2, task.name).Bind(3, task.source);
  insert.Bind(4, static_cast<int64_t>(task.steps)).Bind(5, WorkStatusName(task.status));
  RETURN_IF_ERROR(insert.Run());
  ASSIGN_OR_RETURN(Statement file, db_.Prepare("INSERT INTO task_files VALUES (?, ?, ?)"));
  file.Bind(1, run).Bind(2, task.name).Bind(3, Dump(task.file));
  return file.Run();
}

Result<std::vector<TaskInfo>> RunDb::Tasks(int64_t run) {
  ASSIGN_OR_RETURN(Statement select,
                   db_.Prepare("SELECT t.name, t.source, t.steps, t.status, f.file FROM tasks t "
                               "LEFT JOIN task_files f ON f.run_id = t.run_id AND f.name = t.name "
                               "WHERE t.run_id = ? ORDER BY t.name"));
  select.Bind(1, run);
  std::vector<TaskInfo> tasks;
  while (true) {
    ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) {
      return tasks;
    }
    ASSIGN_OR_RETURN(WorkStatus status, StatusColumn(select, 3));
    std::string name = select.ColumnText(0);
    ASSIGN_OR_RETURN(nlohmann::json file, JsonColumn(select, 4, "file", JsonKind::kObjectOrNull,
                                                     TaskFilesRow(run, name)));
    tasks.push_back({.name = std::move(name),
                     .source = select.ColumnText(1),
                     .steps = static_cast<int>(select.ColumnInt(2)),
                     .status = status,
                     .file = std::move(file)});
  }
}

Status RunDb::SetTaskStatus(int64_t run, const std::string& task, WorkStatus status) {
  ASSIGN_OR_RETURN(Statement update,
                   db_.Prepare("UPDATE tasks SET status = ? WHERE run_id = ? AND name = ?"));
  update.Bind(1, WorkStatusName(status)).Bind(2, run).Bind(3, task);
  return update.Run();
}

Status RunDb::RecordStep(int64_t run, const std::string& task, const StepRecord& step) {
  return InTransaction(db_, [&]() -> Status {
    ASSIGN_OR_RETURN(Statement node,
                     db_.Prepare("INSERT INTO nodes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                                 "?, ?)"));
    node.Bind(1, run).Bind(2, task).Bind(3, static_cast<int64_t>(step.node));
    node.Bind(4, static_cast<int64_t>(step.parent)).Bind(5, step.move);
    node.Bind(6, Dump(step.context)).Bind(7, step.kernel).Bind(8, step.verdict);
    node.Bind(9, step.reason).Bind(10, int64_t{step.compiled}).Bind(11, int64_t{step.correct});
    if (step.speedup) {
      node.Bind(12, *step.speedup);
    }
    node.Bind(13, Dump(step.result)).Bind(14, step.created_at != 0 ? step.created_at : Now());
    if (Status s = node.Run(); !s.ok()) {
      return s.WithContext(fmt::format("recording node {} of {}", step.node, task));
    }
    for (size_t seq = 0; seq < step.calls.size(); ++seq) {
      const CallRecord& call = step.calls[seq];
      ASSIGN_OR_RETURN(Statement insert,
                       db_.Prepare("INSERT INTO llm_calls VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                                   "?, ?, ?, ?)"));
      insert.Bind(1, run).Bind(2, task).Bind(3, static_cast<int64_t>(step.node));
      insert.Bind(4, static_cast<int64_t>(seq)).Bind(5, call.role).Bind(6, Dump(call.messages));
      insert.Bind(7, call.reply).Bind(8, call.error).Bind(9, Dump(call.usage));
      if (call.cost_usd) {
        insert.Bind(10, *call.cost_usd);
      }
      insert.Bind(11, call.latency_s).Bind(12, static_cast<int64_t>(call.attempts));
      insert.Bind(13, call.source).Bind(14, call.model);
      RETURN_IF_ERROR(insert.Run());
      if (call.cost_id) {  // Its cost is counted with the call from now on.
        ASSIGN_OR_RETURN(Statement settle,
                         db_.Prepare("DELETE FROM llm_call_costs WHERE id = ? AND run_id = ?"));
        RETURN_IF_ERROR(settle.Bind(1, *call.cost_id).Bind(2, run).Run());
      }
    }
    return Status::Ok();
  });
}

Result<int64_t> RunDb::RecordCallCost(int64_t run, const std::string& task, int node,
                                      const CallRecord& call) {
  ASSIGN_OR_RETURN(Statement insert,
                   db_.Prepare("INSERT INTO llm_call_costs (run_id, task, node, role, source, "
                               "error, usage, cost_usd, recorded_at, model) VALUES (?, ?, ?, ?, ?, "
                               "?, ?, ?, ?, ?) RETURNING id"));
  insert.Bind(1, run).Bind(2, task).Bind(3, static_cast<int64_t>(node)).Bind(4, call.role);
  insert.Bind(5, call.source).Bind(6, call.error).Bind(7, Dump(call.usage));
  if (call.cost_usd) {
    insert.Bind(8, *call.cost_usd);
  }
  insert.Bind(9, Now()).Bind(10, call.model);
  return InsertedId(insert, "llm_call_costs");
}

namespace {

// The usage counts a run's totals sum: each total's key and the count's key in a call's stored
// usage (llm/token_usage.h's TokenUsageJson).
constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kUsageTotals = {{
    {"input_tokens", "input"},
    {"output_tokens", "output"},
    {"cached_input_tokens", "cached_input"},
    {"cache_write_tokens", "cache_write"},
}};

// SQL totals of a run's calls (recorded and not: CallTotals), one row per `group` ("" for one row
// of them all), each: the group's columns, then the count, kUsageTotals' sums, the cost and the
// unpriced calls. total() rather than sum(): SQLite's sum() of integers fails with "integer
// overflow", which one absurd count stored by an earlier build would make of every report and
// resume. A call of a version-1 database, with no model of its own, is its run's model's.
std::string CallTotalsSql(std::string_view group) {
  std::string sums;
  for (const auto& [total, key] : kUsageTotals) {
    sums += UsageSum(fmt::format("$.{}", key)) + ", ";
  }
  return fmt::format(
      "WITH calls AS (SELECT usage, cost_usd, source, error, role, model FROM llm_calls "
      "WHERE run_id = ?1 UNION ALL SELECT usage, cost_usd, source, error, role, model FROM "
      "llm_call_costs WHERE run_id = ?1), named AS (SELECT usage, cost_usd, source, error, role, "
      "CASE WHEN model = '' THEN (SELECT model FROM runs WHERE id = ?1) ELSE model END AS model "
      "FROM calls) SELECT {0}count(*), {1}total(cost_usd), "
      "total(CASE WHEN cost_usd IS NULL AND source = 'live' AND error = '' THEN 1 ELSE 0 END) "
      "FROM named{2}",
      group.empty() ? "" : fmt::format("{}, ", group), sums,
      group.empty() ? "" : fmt::format(" GROUP BY {0} ORDER BY {0}", group));
}

// CallTotals' object from the columns of one row of CallTotalsSql, from `first` on.
nlohmann::json CallTotalsRow(const Statement& select, int first) {
  nlohmann::json totals = {{"calls", select.ColumnInt(first)}};
  int column = first + 1;
  for (const auto& [total, key] : kUsageTotals) {
    totals[std::string(total)] = SaturatingInt(select.ColumnDouble(column++));
  }
  const double cost_usd = select.ColumnDouble(column);
  const int64_t unpriced = SaturatingInt(select.ColumnDouble(column + 1));
  // As the ledger's totals say it: no price known for any call is no figure, not $0.
  totals["cost_usd"] =
      unpriced > 0 && cost_usd == 0 ? nlohmann::json(nullptr) : nlohmann::json(cost_usd);
  totals["unpriced_calls"] = unpriced;
  return totals;
}

}  // namespace

Result<nlohmann::json> RunDb::CallTotals(int64_t run) {
  ASSIGN_OR_RETURN(Statement select, db_.Prepare(CallTotalsSql("")));
  select.Bind(1, run);
  ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) {
    return InternalError("an aggregate query returned no row");
  }
  return CallTotalsRow(select, 0);
}

Result<std::vector<nlohmann::json>> RunDb::CallTotalsByModelRole(int64_t run) {
  ASSIGN_OR_RETURN(Statement select, db_.Prepare(CallTotalsSql("model, role")));
  select.Bind(1, run);
  std::vector<nlohmann::json> rows;
  while (true) {
    ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) {
      return rows;
    }
    nlohmann::json totals = CallTotalsRow(select, 2);
    totals["model"] = select.ColumnText(0);
    totals["role"] = select.ColumnText(1);
    rows.push_back(std::move(totals));
  }
}

Result<std::vector<StepRecord>> RunDb::Steps(int64_t run, const std::string& task) {
  ASSIGN_OR_RETURN(
      Statement select,
      db_.Prepare("SELECT node, parent, move, context, kernel, verdict, reason, "
                  "compiled, correct, speedup, result, created_at FROM nodes WHERE run_id = ? "
                  "AND task = ? ORDER BY node"));
  select.Bind(1, run).Bind(2, task);
  std::vector<StepRecord> steps;
  while (true) {
    ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) {
      break;
    }
    const std::string row_name = NodesRow(run, task, select.ColumnInt(0));
    ASSIGN_OR_RETURN(nlohmann::json result,
                     JsonColumn(select, 10, "result", JsonKind::kObject, row_name));
    ASSIGN_OR_RETURN(const nlohmann::json context,
                     JsonColumn(select, 3, "context", JsonKind::kArray, row_name));
    StepRecord step{.node = static_cast<int>(select.ColumnInt(0)),
                    .parent = static_cast<int>(select.ColumnInt(1)),
                    .move = select.ColumnText(2),
                    .kernel = select.ColumnText(4),
                    .verdict = select.ColumnText(5),
                    .reason = select.ColumnText(6),
                    .compiled = select.ColumnInt(7) != 0,
                    .correct = select.ColumnInt(8) != 0,
                    .result = std::move(result),
                    .created_at = select.ColumnInt(11)};
    for (const auto& id : context) {
      if (id.is_number_integer()) {
        step.context.push_back(id.get<int>());
      }
    }
    if (!select.ColumnIsNull(9)) {
      step.speedup = select.ColumnDouble(9);
    }
    steps.push_back(std::move(step));
  }
  ASSIGN_OR_RETURN(Statement calls,
                   db_.Prepare("SELECT node, role, messages, reply, error, usage, cost_usd, "
                               "latency_s, attempts, source, seq, model FROM llm_calls WHERE "
                               "run_id = ? AND task = ? ORDER BY node, seq"));
  calls.Bind(1, run).Bind(2, task);
  size_t at = 0;
  while (true) {
    ASSIGN_OR_RETURN(bool row, calls.Step());
    if (!row) {
      return steps;
    }
    const int node = static_cast<int>(calls.ColumnInt(0));
    while (at < steps.size() && steps[at].node < node) {
      ++at;
    }
    if (at == steps.size() || steps[at].node != node) {
      continue;  // Cannot happen: calls are written with their node.
    }
    const std::string row_name = CallsRow(run, task, node, calls.ColumnInt(10));
    ASSIGN_OR_RETURN(nlohmann::json messages,
                     JsonColumn(calls, 2, "messages", JsonKind::kArray, row_name));
    ASSIGN_OR_RETURN(nlohmann::json usage,
                     JsonColumn(calls, 5, "usage", JsonKind::kObject, row_name));
    CallRecord call{.role = calls.ColumnText(1),
                    .model = calls.ColumnText(11),
                    .messages = std::move(messages),
                    .reply = calls.ColumnText(3),
                    .error = calls.ColumnText(4),
                    .usage = std::move(usage),
                    .latency_s = calls.ColumnDouble(7),
                    .attempts = static_cast<int>(calls.ColumnInt(8)),
                    .source = calls.ColumnText(9)};
    if (!calls.ColumnIsNull(6)) {
      call.cost_usd = calls.ColumnDouble(6);
    }
    steps[at].calls.push_back(std::move(call));
  }
}

Status RunDb::RecordBaseline(const nlohmann::json& baseline) {
  ASSIGN_OR_RETURN(Statement put,
                   db_.Prepare("INSERT OR REPLACE INTO baselines VALUES (?, ?, ?, ?, ?, ?)"));
  return put.Bind(1, baseline.value("key", ""))
      .Bind(2, baseline.value("task", ""))
      .Bind(3, baseline.value("task_sha256", ""))
      .Bind(4, baseline.value("profile", ""))
      .Bind(5, Dump(baseline))
      .Bind(6, Now())
      .Run();
}

Result<std::vector<nlohmann::json>> RunDb::Baselines() {
  ASSIGN_OR_RETURN(Statement select,
                   db_.Prepare("SELECT key, result FROM baselines ORDER BY recorded_at, rowid"));
  std::vector<nlohmann::json> baselines;
  while (true) {
    ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) {
      return baselines;
    }
    ASSIGN_OR_RETURN(nlohmann::json baseline,
                     JsonColumn(select, 1, "result", JsonKind::kObject,
                                fmt::format("baselines row (key '{}')", select.ColumnText(0))));
    baselines.push_back(std::move(baseline));
  }
}

}  // namespace adaexplore
