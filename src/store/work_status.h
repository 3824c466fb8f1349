#pragma once

// The state of a run or of one task of a run, as the run database keeps it (by name).
//
//   running   being worked on (or killed while it was: resume continues it)
//   finished  every step done
//   stopped   interrupted, or out of budget: resume continues it
//   broken    the task itself failed (task_error): no step is spent on it again

#include <optional>
#include <string_view>

namespace adaexplore {

enum class WorkStatus { kRunning, kFinished, kStopped, kBroken };

std::string_view WorkStatusName(WorkStatus status);
std::optional<WorkStatus> ParseWorkStatus(std::string_view name);

}  // namespace adaexplore
