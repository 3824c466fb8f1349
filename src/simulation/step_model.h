#pragma once

// The simulated LLM and harness, fitted to real search trees (docs/simulation.md): per step
// situation (tree_steps.h), the chance of each verdict and the distribution of the speed change.
//   verdict          by StepCell: the share of the trees' steps in that cell with each verdict
//   speed of a step with a base   base * a ratio drawn from the trees' ratios of the same move
//                    kind, BaseGap and BaseProgress; where that group has fewer than kMinRatios,
//                    those of the kind and gap, then those of the kind
//   speed of a step with none     the task's fresh scale * a draw of the trees' fresh kernels over
//                    their own task's scale
//   a task            its fresh scale, a draw of the trees' fresh scales, and its ceiling, that
//                    times a draw of the trees' headrooms (how far each tree's search got): no
//                    kernel of the task is faster than its ceiling. Without the ceiling every
//                    simulated task climbs without end; in the trees most plateau at 3-7x their
//                    fresh kernels, a few go on past 50x.
// Draws are kernel-density draws (log_density.h). Fit on some trees; CheckHeldOut
// (held_out.h) compares it with the others.

#include <array>
#include <map>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include "core/result.h"
#include "simulation/log_density.h"
#include "simulation/tree_steps.h"

namespace adaexplore {

inline constexpr size_t kMinRatios = 10;

// A simulated task: its typical fresh kernel's speedup, and the speedup none of its kernels
// exceeds.
struct SimulatedTask {
  double fresh_scale = 1;
  double ceiling = 1;
};

// The chance of each verdict, in StepVerdict's order.
using VerdictRates = std::array<double, 3>;

class StepModel {
 public:
  // An error when a cell has no step or a move kind no correct step with a base.
  static Result<StepModel> Fit(const std::vector<TreeSteps>& trees);

  const VerdictRates& Rates(StepCell cell) const { return rates_.at(cell); }
  size_t CellSteps(StepCell cell) const { return cell_steps_.at(cell); }
  StepVerdict DrawVerdict(StepCell cell, std::mt19937_64& random) const;
  // The speed ratio (new / base) of a correct step of `kind` from a base at `gap` and `progress`.
  const LogDensity& Ratios(MoveKind kind, BaseGap gap, BaseProgress progress) const;
  const LogDensity& FreshRatios() const { return fresh_ratio_; }
  const LogDensity& FreshScales() const { return fresh_scale_; }
  const LogDensity& Headrooms() const { return headroom_; }
  // A task drawn from the trees'; `fresh_scale`: the task's own, where it is known.
  SimulatedTask DrawTask(std::mt19937_64& random,
                         std::optional<double> fresh_scale = std::nullopt) const;

 private:
  std::map<StepCell, VerdictRates> rates_;
  std::map<StepCell, size_t> cell_steps_;
  std::map<std::tuple<MoveKind, BaseGap, BaseProgress>, LogDensity> ratios_;
  LogDensity fresh_ratio_;
  LogDensity fresh_scale_;
  LogDensity headroom_;
};

}  // namespace adaexplore
