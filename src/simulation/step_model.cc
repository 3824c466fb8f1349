#include "simulation/step_model.h"

#include <string>

namespace adaexplore {

Result<StepModel> StepModel::Fit(const std::vector<TreeSteps>& trees) {
  StepModel model;
  std::map<StepCell, std::array<size_t, 3>> counts;
  std::map<std::tuple<MoveKind, BaseGap, BaseProgress>, std::vector<double>> ratios;
  std::map<std::pair<MoveKind, BaseGap>, std::vector<double>> gap_ratios;
  std::map<MoveKind, std::vector<double>> kind_ratios;
  std::vector<double> fresh_ratios;
  std::vector<double> fresh_scales;
  std::vector<double> headrooms;
  for (const TreeSteps& tree : trees) {
    if (tree.fresh_scale) {
      fresh_scales.push_back(*tree.fresh_scale);
      headrooms.push_back(*tree.headroom);
    }
    for (const TreeStep& step : tree.steps) {
      ++counts[step.cell][static_cast<size_t>(step.verdict)];
      if (step.verdict != StepVerdict::kCorrect) {
        continue;
      }
      if (step.base) {
        const double ratio = step.speedup / *step.base;
        ratios[{step.kind, step.gap, step.progress}].push_back(ratio);
        gap_ratios[{step.kind, step.gap}].push_back(ratio);
        kind_ratios[step.kind].push_back(ratio);
      } else if (tree.fresh_scale) {
        fresh_ratios.push_back(step.speedup / *tree.fresh_scale);
      }
    }
  }
  for (const auto& [cell, name] : EnumTraits<StepCell>::kNames) {
    const std::array<size_t, 3>& c = counts[cell];
    const size_t total = c[0] + c[1] + c[2];
    if (total == 0) {
      return Status(StatusCode::kInvalidArgument,
                    "no step of the trees is " + std::string(name) + ": nothing to fit it on");
    }
    model.cell_steps_[cell] = total;
    for (size_t v = 0; v < 3; ++v) {
      model.rates_[cell][v] = static_cast<double>(c[v]) / static_cast<double>(total);
    }
  }
  for (MoveKind kind : {MoveKind::kSmall, MoveKind::kLarge}) {
    if (kind_ratios[kind].empty()) {
      return Status(StatusCode::kInvalidArgument,
                    "no correct " + std::string(MoveKindName(kind)) +
                        " step of the trees built on a correct kernel: no speed change to fit");
    }
    for (const auto& [gap, gap_name] : EnumTraits<BaseGap>::kNames) {
      for (const auto& [progress, progress_name] : EnumTraits<BaseProgress>::kNames) {
        const std::vector<double>& own = ratios[{kind, gap, progress}];
        const std::vector<double>& of_gap = gap_ratios[{kind, gap}];
        model.ratios_[{kind, gap, progress}] =
            LogDensity(own.size() >= kMinRatios      ? own
                       : of_gap.size() >= kMinRatios ? of_gap
                                                     : kind_ratios[kind]);
      }
    }
  }
  if (fresh_scales.empty()) {
    return Status(StatusCode::kInvalidArgument,
                  "no tree has a correct kernel made from nothing: no fresh speed to fit");
  }
  model.fresh_ratio_ = LogDensity(fresh_ratios);
  model.fresh_scale_ = LogDensity(fresh_scales);
  model.headroom_ = LogDensity(headrooms);
  return model;
}

StepVerdict StepModel::DrawVerdict(StepCell cell, std::mt19937_64& random) const {
  const VerdictRates& r = rates_.at(cell);
  const double u = std::uniform_real_distribution<double>(0, 1)(random);
  if (u < r[0]) {
    return StepVerdict::kCorrect;
  }
  return u < r[0] + r[1] ? StepVerdict::kWrong : StepVerdict::kError;
}

SimulatedTask StepModel::DrawTask(std::mt19937_64& random,
                                  std::optional<double> fresh_scale) const {
  SimulatedTask task;
  task.fresh_scale = fresh_scale ? *fresh_scale : fresh_scale_.Draw(random);
  task.ceiling = task.fresh_scale * std::max(1.0, headroom_.Draw(random));
  return task;
}

const LogDensity& StepModel::Ratios(MoveKind kind, BaseGap gap, BaseProgress progress) const {
  return ratios_.at({kind, gap, progress});
}

}  // namespace adaexplore
