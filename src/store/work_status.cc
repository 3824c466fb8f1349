#include "store/work_status.h"

#include <array>
#include <utility>

namespace adaexplore {
namespace {

constexpr std::array<std::pair<WorkStatus, std::string_view>, 4> kNames = {{
    {WorkStatus::kRunning, "running"},
    {WorkStatus::kFinished, "finished"},
    {WorkStatus::kStopped, "stopped"},
    {WorkStatus::kBroken, "broken"},
}};

}  // namespace

std::string_view WorkStatusName(WorkStatus status) {
  for (const auto& [s, name] : kNames) {
    if (s == status) {
      return name;
    }
  }
  return "stopped";
}

std::optional<WorkStatus> ParseWorkStatus(std::string_view name) {
  for (const auto& [s, n] : kNames) {
    if (n == name) {
      return s;
    }
  }
  return std::nullopt;
}

}  // namespace adaexplore
