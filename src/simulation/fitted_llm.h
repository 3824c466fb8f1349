#pragma once

// One simulated task searched with a fitted StepModel standing in for the LLM and the harness:
// a planned step (search/policy.h) becomes a kernel's outcome, drawn for the step's situation
// as tree_steps.h classifies a real step, and never faster than the task's ceiling. The task
// (StepModel::DrawTask) is the caller's draw, so that every method searching one simulated task
// meets the same task. Not thread-safe: one per task and method.

#include <random>

#include "search/policy.h"
#include "simulation/step_model.h"

namespace adaexplore {

class FittedLlm {
 public:
  FittedLlm(const StepModel& model, SimulatedTask task, std::mt19937_64& random);

  // The outcome of `plan` on `tree` (the tree as it stands when the step ends).
  NodeOutcome Step(const SearchTree& tree, const StepPlan& plan);

  const SimulatedTask& task() const { return task_; }

 private:
  const StepModel& model_;
  std::mt19937_64& random_;
  SimulatedTask task_;
};

}  // namespace adaexplore
