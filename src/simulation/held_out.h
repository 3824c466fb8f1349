#pragma once

// Whether a StepModel fitted on some trees describes the others: the trees are dealt into folds
// (the i-th tree by name into fold i % folds); each fold's steps are simulated by the model
// fitted on the other folds, and compared, fold by fold, with what that model says of the same
// situations (pooled over folds, one fold's excess would cancel another's shortfall).
//   verdict rates   per move kind and per cell: the real share of each verdict against the
//                   model's chance for those very steps (each step's cell's rate, averaged);
//                   within `rate_points` (absolute) or not
//   speed changes   per move kind: the quantiles of the real ratios (new / base) of the held-out
//                   correct steps with a base, against those of `draws` ratios drawn per such
//                   step for its own kind, gap and progress; the fresh kernels' speed over their
//                   task's scale likewise; within `quantile_share` (relative) or not

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "simulation/step_model.h"
#include "simulation/tree_steps.h"

namespace adaexplore {

struct HeldOutOptions {
  int folds = 2;
  int draws = 200;
  uint64_t seed = 1;
  double rate_points = 0.05;
  double quantile_share = 0.10;
  std::vector<double> quantiles = {0.1, 0.25, 0.5, 0.75, 0.9};
};

struct RateCheck {
  int fold = 0;
  std::string group;  // "small", "large" or a cell's name.
  StepVerdict verdict = StepVerdict::kCorrect;
  size_t steps = 0;
  double real = 0;
  double simulated = 0;
  bool within = false;
};

struct QuantileCheck {
  int fold = 0;
  std::string group;  // "small", "large", "fresh".
  double p = 0;
  size_t samples = 0;  // Real ratios.
  double real = 0;
  double simulated = 0;
  bool within = false;
  // The same quantile among the trees the model was fitted on: where it is far from `real`, the
  // trees differ from each other there more than any fit to some of them can follow.
  double fitted_on = 0;
};

struct HeldOutReport {
  std::vector<RateCheck> rates;
  std::vector<QuantileCheck> quantiles;
  // Whether every check of the move kinds (the targets) is within; the per-cell rows are shown
  // beside them.
  bool KindRatesWithin() const;
  bool QuantilesWithin() const;
};

// Whether the tree at `index` (in name order) is held out in `fold` of `folds`.
inline bool HeldOutIn(size_t index, int folds, int fold) {
  return static_cast<int>(index % static_cast<size_t>(folds)) == fold;
}

// The model fitted on every tree but those held out in `fold`.
Result<StepModel> FitWithout(const std::vector<TreeSteps>& trees, int folds, int fold);

Result<HeldOutReport> CheckHeldOut(const std::vector<TreeSteps>& trees,
                                   const HeldOutOptions& options);

nlohmann::json HeldOutJson(const HeldOutReport& report, const HeldOutOptions& options);
std::string HeldOutText(const HeldOutReport& report, const HeldOutOptions& options);

}  // namespace adaexplore
