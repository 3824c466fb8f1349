#include "store/work_status.h"

#include <array>
#include <utility>

#include "core/enum_names.h"

namespace adaexplore {
namespace {

constexpr std::array<std::pair<WorkStatus, std::string_view>, 4> kNames = {{
    {WorkStatus::kRunning, "running"},
    {WorkStatus::kFinished, "finished"},
    {WorkStatus::kStopped, "stopped"},
    {WorkStatus::kBroken, "broken"},
}};

}  // namespace

std::string_view WorkStatusName(WorkStatus status) { return NameIn(kNames, status, "stopped"); }

std::optional<WorkStatus> ParseWorkStatus(std::string_view name) { return ValueIn(kNames, name); }

}  // namespace adaexplore
