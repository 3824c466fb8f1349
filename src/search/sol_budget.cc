#include "search/sol_budget.h"

#include <algorithm>

namespace adaexplore {
namespace {

int Used(const TaskBudget& t) { return t.steps_done + t.in_flight; }

bool Full(const TaskBudget& t) { return t.in_flight >= std::max(t.max_in_flight, 1); }

}  // namespace

bool ReachedSol(const TaskBudget& task, double stop_at) {
  return stop_at > 0 && task.best_sol && *task.best_sol >= stop_at;
}

bool MayStartOwnStep(const TaskBudget& task, int steps, double stop_at) {
  return !task.broken && !Full(task) && !ReachedSol(task, stop_at) && Used(task) < steps;
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
    if (t.broken || Full(t) || ReachedSol(t, stop_at) || Used(t) < steps) {
      continue;
    }
    if (!chosen || t.best_sol.value_or(0) < tasks[*chosen].best_sol.value_or(0)) {
      chosen = i;
    }
  }
  return chosen;
}

}  // namespace adaexplore
