#include "search/sol_budget.h"

#include <algorithm>

namespace adaexplore {
namespace {

int Used(const TaskBudget& t) { return t.steps_done + (t.in_flight ? 1 : 0); }

}  // namespace

bool ReachedSol(const TaskBudget& task, double stop_at) {
  return stop_at > 0 && task.best_sol && *task.best_sol >= stop_at;
}

bool MayStartOwnStep(const TaskBudget& task, int steps, double stop_at) {
  return !task.broken && !task.in_flight && !ReachedSol(task, stop_at) && task.steps_done < steps;
}

int SpareSteps(const std::vector<TaskBudget>& tasks, int steps, double stop_at) {
  int spare = 0;
  for (const TaskBudget& t : tasks) {
    if (ReachedSol(t, stop_at)) {
      spare += std::max(0, steps - Used(t));
    } else {
      spare -= std::max(0, Used(t) - steps);
    }
  }
  return std::max(0, spare);
}

std::optional<size_t> NextSpareStep(const std::vector<TaskBudget>& tasks, int steps,
                                    double stop_at) {
  if (stop_at <= 0 || SpareSteps(tasks, steps, stop_at) == 0) {
    return std::nullopt;
  }
  std::optional<size_t> chosen;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const TaskBudget& t = tasks[i];
    if (t.broken || t.in_flight || ReachedSol(t, stop_at) || t.steps_done < steps) {
      continue;
    }
    if (!chosen || t.best_sol.value_or(0) < tasks[*chosen].best_sol.value_or(0)) {
      chosen = i;
    }
  }
  return chosen;
}

}  // namespace adaexplore
