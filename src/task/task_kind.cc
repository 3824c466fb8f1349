#include "task/task_kind.h"

namespace adaexplore {

TaskKind DetectTaskKind(std::string_view path, std::string_view source) {
  for (const auto& [kind, name] : EnumTraits<TaskKind>::kNames) {
    const TaskKindInfo info = KindInfo(kind);
    if (info.recognises == nullptr || info.recognises(path, source)) {
      return kind;
    }
  }
  return TaskKind::kKernelBench;
}

bool TakesJsonCandidates(std::string_view path) {
  return KindInfo(DetectTaskKind(path, "")).json_candidates;
}

}  // namespace adaexplore
