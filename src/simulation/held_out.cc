#include "simulation/held_out.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "simulation/step_model.h"

namespace adaexplore {

namespace {

struct RateTally {
  size_t steps = 0;
  std::array<double, 3> real{};       // Steps with each verdict.
  std::array<double, 3> simulated{};  // The model's chances, summed over the same steps.
};

std::string KindGroup(MoveKind kind) { return kind == MoveKind::kSmall ? "small" : "large"; }

}  // namespace

bool HeldOutReport::KindRatesWithin() const {
  return std::all_of(rates.begin(), rates.end(), [](const RateCheck& r) {
    return r.within || (r.group != "small" && r.group != "large");
  });
}

bool HeldOutReport::QuantilesWithin() const {
  return std::all_of(quantiles.begin(), quantiles.end(),
                     [](const QuantileCheck& q) { return q.within; });
}

Result<StepModel> FitWithout(const std::vector<TreeSteps>& trees, int folds, int fold) {
  std::vector<TreeSteps> fit;
  for (size_t i = 0; i < trees.size(); ++i) {
    if (!HeldOutIn(i, folds, fold)) {
      fit.push_back(trees[i]);
    }
  }
  return StepModel::Fit(fit);
}

Result<HeldOutReport> CheckHeldOut(const std::vector<TreeSteps>& trees,
                                   const HeldOutOptions& options) {
  if (options.folds < 2 || static_cast<size_t>(options.folds) > trees.size()) {
    return Status(StatusCode::kInvalidArgument,
                  fmt::format("{} folds of {} trees: each fold needs a tree, and the fit another",
                              options.folds, trees.size()));
  }
  std::mt19937_64 random(options.seed);
  // By fold and group: each fold's steps against the model fitted without them, so that one
  // fold's excess cannot cancel another's shortfall.
  std::map<std::pair<int, std::string>, RateTally> tallies;
  std::map<std::pair<int, std::string>, std::vector<double>> real_ratios;
  std::map<std::pair<int, std::string>, std::vector<double>> drawn_ratios;
  for (int fold = 0; fold < options.folds; ++fold) {
    std::vector<const TreeSteps*> held;
    for (size_t i = 0; i < trees.size(); ++i) {
      if (HeldOutIn(i, options.folds, fold)) {
        held.push_back(&trees[i]);
      }
    }
    ASSIGN_OR_RETURN(const StepModel model, FitWithout(trees, options.folds, fold));
    for (const TreeSteps* tree : held) {
      for (const TreeStep& step : tree->steps) {
        const VerdictRates& chance = model.Rates(step.cell);
        for (const std::string& group : {KindGroup(step.kind), std::string(EnumName(step.cell))}) {
          RateTally& t = tallies[{fold, group}];
          ++t.steps;
          t.real[static_cast<size_t>(step.verdict)] += 1;
          for (size_t v = 0; v < 3; ++v) {
            t.simulated[v] += chance[v];
          }
        }
        if (step.verdict != StepVerdict::kCorrect) {
          continue;
        }
        const bool fresh = !step.base;
        if (fresh && !tree->fresh_scale) {
          continue;
        }
        const std::string group = fresh ? "fresh" : KindGroup(step.kind);
        real_ratios[{fold, group}].push_back(fresh ? step.speedup / *tree->fresh_scale
                                                   : step.speedup / *step.base);
        const LogDensity& density =
            fresh ? model.FreshRatios() : model.Ratios(step.kind, step.gap, step.progress);
        for (int d = 0; d < options.draws; ++d) {
          drawn_ratios[{fold, group}].push_back(density.Draw(random));
        }
      }
    }
  }
  HeldOutReport report;
  std::vector<std::string> groups = {"small", "large"};
  for (const auto& [cell, name] : EnumTraits<StepCell>::kNames) {
    groups.emplace_back(name);
  }
  for (int fold = 0; fold < options.folds; ++fold) {
    for (const std::string& group : groups) {
      const RateTally& t = tallies[{fold, group}];
      if (t.steps == 0) {
        continue;
      }
      for (const auto& [verdict, name] : EnumTraits<StepVerdict>::kNames) {
        const auto v = static_cast<size_t>(verdict);
        const double n = static_cast<double>(t.steps);
        RateCheck check{.fold = fold,
                        .group = group,
                        .verdict = verdict,
                        .steps = t.steps,
                        .real = t.real[v] / n,
                        .simulated = t.simulated[v] / n};
        check.within = std::abs(check.real - check.simulated) <= options.rate_points;
        report.rates.push_back(check);
      }
    }
  }
  for (int fold = 0; fold < options.folds; ++fold) {
    for (const std::string group : {"small", "large", "fresh"}) {
      const std::vector<double>& real = real_ratios[{fold, group}];
      if (real.empty()) {
        continue;
      }
      std::vector<double> fitted_on;
      for (int other = 0; other < options.folds; ++other) {
        if (other != fold) {
          const std::vector<double>& theirs = real_ratios[{other, group}];
          fitted_on.insert(fitted_on.end(), theirs.begin(), theirs.end());
        }
      }
      for (double p : options.quantiles) {
        QuantileCheck check{.fold = fold,
                            .group = group,
                            .p = p,
                            .samples = real.size(),
                            .real = QuantileOf(real, p),
                            .simulated = QuantileOf(drawn_ratios[{fold, group}], p),
                            .fitted_on = QuantileOf(fitted_on, p)};
        check.within = std::abs(check.simulated / check.real - 1) <= options.quantile_share;
        report.quantiles.push_back(check);
      }
    }
  }
  return report;
}

nlohmann::json HeldOutJson(const HeldOutReport& report, const HeldOutOptions& options) {
  nlohmann::json rates = nlohmann::json::array();
  for (const RateCheck& r : report.rates) {
    rates.push_back({{"fold", r.fold},
                     {"group", r.group},
                     {"verdict", EnumName(r.verdict)},
                     {"steps", r.steps},
                     {"real", r.real},
                     {"simulated", r.simulated},
                     {"within", r.within}});
  }
  nlohmann::json quantiles = nlohmann::json::array();
  for (const QuantileCheck& q : report.quantiles) {
    quantiles.push_back({{"fold", q.fold},
                         {"group", q.group},
                         {"p", q.p},
                         {"samples", q.samples},
                         {"real", q.real},
                         {"simulated", q.simulated},
                         {"within", q.within},
                         {"fitted_on", q.fitted_on}});
  }
  return {{"folds", options.folds},
          {"draws_per_step", options.draws},
          {"rate_points", options.rate_points},
          {"quantile_share", options.quantile_share},
          {"kind_rates_within", report.KindRatesWithin()},
          {"quantiles_within", report.QuantilesWithin()},
          {"rates", rates},
          {"quantiles", quantiles}};
}

std::string HeldOutText(const HeldOutReport& report, const HeldOutOptions& options) {
  std::string out = fmt::format(
      "Held-out check: {} folds; verdict rates within {:.0f} points, speed-change quantiles "
      "within {:.0f}%; each fold's trees against the model fitted on the others\n\n"
      "| fold | steps of | n | verdict | real | simulated | within |\n"
      "|---:|---|---:|---|---:|---:|---|\n",
      options.folds, options.rate_points * 100, options.quantile_share * 100);
  for (const RateCheck& r : report.rates) {
    out +=
        fmt::format("| {} | {} | {} | {} | {:.1f}% | {:.1f}% | {} |\n", r.fold, r.group, r.steps,
                    EnumName(r.verdict), r.real * 100, r.simulated * 100, r.within ? "yes" : "no");
  }
  out +=
      "\n| fold | speed change of | n | quantile | real | simulated | within | in the fitted "
      "trees |\n|---:|---|---:|---:|---:|---:|---|---:|\n";
  for (const QuantileCheck& q : report.quantiles) {
    out +=
        fmt::format("| {} | {} | {} | {:.2f} | {:.3f} | {:.3f} | {} | {:.3f} |\n", q.fold, q.group,
                    q.samples, q.p, q.real, q.simulated, q.within ? "yes" : "no", q.fitted_on);
  }
  return out;
}

}  // namespace adaexplore
