#include "task/task_kind.h"

#include <optional>

namespace adaexplore {

TaskKind DetectTaskKind(std::string_view path, std::string_view source) {
  std::optional<TaskKind> any_file;
  for (const auto& [kind, name] : EnumTraits<TaskKind>::kNames) {
    const TaskKindInfo info = KindInfo(kind);
    if (info.recognises == nullptr) {
      any_file = any_file.value_or(kind);
    } else if (info.recognises(path, source)) {
      return kind;
    }
  }
  return any_file.value_or(TaskKind::kKernelBench);
}

bool TakesJsonCandidates(std::string_view path) {
  return KindInfo(DetectTaskKind(path, "")).json_candidates;
}

}  // namespace adaexplore
