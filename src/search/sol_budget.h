#pragma once

// `run --stop-at-sol F`: a task whose best kernel reaches F of the speed of light takes no more
// steps, and the steps it leaves go, one at a time, to the task furthest from the speed of light
// that has used its own (docs/profiling.md). Stateless: recomputed from what each task has done,
// so a resumed run spends its spare steps as the uninterrupted one would.
//
//   std::vector<TaskBudget> tasks = ...;  // Each task's state, in the run's order.
//   if (MayStartOwnStep(tasks[i], steps, stop_at) || NextSpareStep(tasks, steps, stop_at) == i)

#include <optional>
#include <vector>

namespace adaexplore {

struct TaskBudget {
  int steps_done = 0;
  int in_flight = 0;               // Its steps running.
  int max_in_flight = 1;           // How many may run at once ([run] in_flight).
  bool broken = false;             // The task itself failed: it takes no steps.
  std::optional<double> best_sol;  // The highest speed-of-light fraction of its correct kernels.
};

// Whether the task has reached the fraction (never, with `stop_at` 0: the paper's protocol).
bool ReachedSol(const TaskBudget& task, double stop_at);

// Whether the task may start a step of its own budget (`steps` per task): fewer than that done
// or running, and fewer than its limit running.
bool MayStartOwnStep(const TaskBudget& task, int steps, double stop_at);

// Steps that tasks which reached the fraction left, less those other tasks already took beyond
// their own budget (running steps counted as taken).
int SpareSteps(const std::vector<TaskBudget>& tasks, int steps, double stop_at);

// The task that takes the next spare step, if there is one: among those not reached, not broken,
// not at their limit of running steps and done with their own steps, the furthest from the speed of
// light (no correct kernel counts as furthest; ties go to the first); nullopt when no step is
// spare.
std::optional<size_t> NextSpareStep(const std::vector<TaskBudget>& tasks, int steps,
                                    double stop_at);

}  // namespace adaexplore
