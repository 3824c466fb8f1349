#include "simulation/fitted_llm.h"

#include <algorithm>

namespace adaexplore {

FittedLlm::FittedLlm(const StepModel& model, SimulatedTask task, std::mt19937_64& random)
    : model_(model), random_(random), task_(task) {}

NodeOutcome FittedLlm::Step(const SearchTree& tree, const StepPlan& plan) {
  const NodeOutcome& parent = tree.node(plan.parent).outcome;
  std::vector<double> shown;
  for (int id : plan.context) {
    const NodeOutcome& o = tree.node(id).outcome;
    if (o.correct) {
      shown.push_back(o.speedup);
    }
  }
  const StepBase base =
      BaseOf(plan.kind, parent.correct ? std::optional(parent.speedup) : std::nullopt, shown);
  switch (model_.DrawVerdict(base.cell, random_)) {
    case StepVerdict::kError:
      return {.compiled = false};
    case StepVerdict::kWrong:
      return {.compiled = true, .correct = false};
    case StepVerdict::kCorrect:
      break;
  }
  double speedup = 0;
  if (base.speedup) {
    const std::optional<int> best = tree.GlobalBest();
    const double best_speedup = best ? tree.node(*best).outcome.speedup : 0;
    const BaseGap gap = GapOf(*base.speedup, best_speedup);
    const BaseProgress progress = ProgressOf(*base.speedup, task_.fresh_scale);
    speedup = *base.speedup * model_.Ratios(plan.kind, gap, progress).Draw(random_);
  } else {
    speedup = task_.fresh_scale * model_.FreshRatios().Draw(random_);
  }
  return {.compiled = true, .correct = true, .speedup = std::min(speedup, task_.ceiling)};
}

}  // namespace adaexplore
