#include "task/task_file.h"

#include "core/enum_json.h"
#include "core/hash.h"

namespace adaexplore {

Result<SourceFile> ReadTaskFile(const std::string& path) {
  ASSIGN_OR_RETURN(SourceFile task, ReadSourceFile(path));
  task.kind = DetectTaskKind(path, task.source);
  if (const auto read_beside = KindInfo(task.kind).read_beside) {
    RETURN_IF_ERROR(read_beside(task));
  }
  return task;
}

nlohmann::json TaskFileJson(const SourceFile& task) {
  return {{"kind", task.kind},
          {"path", task.path},
          {"workloads", task.workloads},
          {"data_root", task.data_root},
          {"workloads_total", task.workloads_total},
          {"check_workloads", task.check_workloads}};
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
  if (file.contains("workloads_total") && file["workloads_total"].is_number_unsigned()) {
    task.workloads_total = file["workloads_total"].get<size_t>();
  }
  const auto read_list = [&file](const char* key, std::vector<nlohmann::json>& into) {
    if (file.contains(key) && file[key].is_array()) {
      into.assign(file[key].begin(), file[key].end());
    }
  };
  read_list("workloads", task.workloads);
  read_list("check_workloads", task.check_workloads);
  return task;
}

}  // namespace adaexplore
