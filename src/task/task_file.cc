#include "task/task_file.h"

#include <fmt/format.h>

#include <filesystem>
#include <sstream>

#include "core/enum_json.h"
#include "core/hash.h"
#include "sys/fs.h"

namespace adaexplore {

namespace fs = std::filesystem;

std::string WorkloadsPathFor(const std::string& definition_path, const std::string& op_type,
                             const std::string& name) {
  // .../definitions/<op_type>/<name>.json -> .../workloads/<op_type>/<name>.jsonl
  const fs::path root = fs::path(definition_path).parent_path().parent_path().parent_path();
  return (root / "workloads" / op_type / (name + ".jsonl")).string();
}

namespace {

Status ReadWorkloads(SourceFile& task) {
  nlohmann::json definition = nlohmann::json::parse(task.source, nullptr, false);
  if (!definition.is_object() || !definition.contains("name") || !definition["name"].is_string() ||
      !definition.contains("op_type") || !definition["op_type"].is_string()) {
    return Status::Ok();  // The worker says what is wrong with it, as a task_error.
  }
  const std::string path = WorkloadsPathFor(task.path, definition["op_type"].get<std::string>(),
                                            definition["name"].get<std::string>());
  task.data_root = fs::path(path).parent_path().parent_path().parent_path().string();
  if (!fs::exists(path)) {
    return Status::Ok();  // No workloads: the worker's task_error names what it looked for.
  }
  ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      continue;
    }
    nlohmann::json entry = nlohmann::json::parse(line, nullptr, false);
    if (entry.is_discarded() || !entry.is_object()) {
      return InvalidArgument(fmt::format("{}:{}: not a JSON object", path, number));
    }
    // Each line is a Trace whose workload is the part we need (the worker validates it).
    task.workloads.push_back(entry.contains("workload") ? entry["workload"] : entry);
  }
  return Status::Ok();
}

}  // namespace

Result<SourceFile> ReadTaskFile(const std::string& path) {
  ASSIGN_OR_RETURN(SourceFile task, ReadSourceFile(path));
  task.kind = DetectTaskKind(path, task.source);
  if (task.kind == TaskKind::kFlashInfer) {
    RETURN_IF_ERROR(ReadWorkloads(task));
  }
  return task;
}

nlohmann::json TaskFileJson(const SourceFile& task) {
  return {{"kind", task.kind},
          {"path", task.path},
          {"workloads", task.workloads},
          {"data_root", task.data_root}};
}

SourceFile TaskFromStored(const std::string& name, const std::string& source,
                          const nlohmann::json& file) {
  SourceFile task{.path = "", .name = name, .source = source, .sha256 = Sha256Hex(source)};
  if (!file.is_object()) {
    return task;
  }
  const std::string kind = file.value("kind", std::string());
  task.kind = EnumFromName<TaskKind>(kind).value_or(TaskKind::kKernelBench);
  task.path = file.value("path", std::string());
  task.data_root = file.value("data_root", std::string());
  if (file.contains("workloads") && file["workloads"].is_array()) {
    for (const nlohmann::json& w : file["workloads"]) {
      task.workloads.push_back(w);
    }
  }
  return task;
}

}  // namespace adaexplore
