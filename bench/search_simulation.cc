// bench/search_simulation: AdaExplore against parallel sampling (PS) and iterative refinement
// (IR) on a synthetic landscape of kernel strategies, over many seeded tasks. A SIMULATION: a
// scripted "LLM" stands in for the model and the harness; it shows how the policies behave on a
// landscape with the shape the paper describes (easy strategies with low ceilings, rarer ones
// with high ceilings, failures everywhere), not what any model would achieve. The assumptions
// are the constants below and are documented in docs/simulation.md.
//
//   build/bench/search_simulation --tasks 300 --steps 100 --json-out FILE

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "core/json_text.h"
#include "search/policy.h"

namespace adaexplore {
namespace {

struct Landscape {
  static constexpr int kStrategies = 8;
  static constexpr int kLevels = 6;  // Refinement levels per strategy, 0..kLevels.
  std::vector<double> ceiling;       // Best speedup the strategy can reach.
  std::vector<double> ease;          // Chance a fresh kernel of it is correct, before failures.
  mutable std::discrete_distribution<int> prior;  // Which strategy a proposal from scratch picks.

  explicit Landscape(std::mt19937_64& random) {
    std::normal_distribution<double> z(0, 1);
    std::vector<double> weights;
    for (int j = 0; j < kStrategies; ++j) {
      const double draw = z(random);
      ceiling.push_back(std::exp(0.6 + 0.8 * draw));  // Median 1.8x; about 1 in 10 above 5x.
      // Harder strategies pay more: ease falls as the ceiling rises.
      ease.push_back(1 / (1 + std::exp(0.9 * draw - 0.3 * z(random))));
      weights.push_back(0.1 + ease.back() * ease.back());  // Models favour easy strategies.
    }
    prior = std::discrete_distribution<int>(weights.begin(), weights.end());
  }

  double Speedup(int strategy, int level, std::mt19937_64& random) const {
    std::lognormal_distribution<double> noise(0, 0.03);  // Measurement noise.
    const double progress = static_cast<double>(level + 1) / (kLevels + 1);
    return std::pow(ceiling[static_cast<size_t>(strategy)], progress) * noise(random);
  }
};

struct State {
  int strategy = 0;
  int level = 0;
};

// The scripted model and harness: a new kernel's state and outcome from a plan.
struct Simulator {
  const Landscape& land;
  std::mt19937_64& random;
  std::vector<State> states = {State{}};  // By node id; the root's is unused.

  double Uniform() { return std::uniform_real_distribution<double>(0, 1)(random); }

  NodeOutcome Outcome(const State& s, double fail_compile, double fail_wrong) {
    const double u = Uniform();
    if (u < fail_compile) {
      return {.compiled = false};
    }
    if (u < fail_compile + fail_wrong) {
      return {.compiled = true, .correct = false};
    }
    return {
        .compiled = true, .correct = true, .speedup = land.Speedup(s.strategy, s.level, random)};
  }

  std::pair<State, NodeOutcome> Large(const SearchTree& tree, const StepPlan& plan) {
    State s{.strategy = land.prior(random), .level = Uniform() < 0.3 ? 1 : 0};
    if (!plan.context.empty() && Uniform() < 0.6) {
      // Build on a pool kernel: its strategy at its level, sometimes a level higher (combining).
      const int pick = plan.context[static_cast<size_t>(random() % plan.context.size())];
      s = states[static_cast<size_t>(pick)];
      s.level = std::min(Landscape::kLevels, s.level + (Uniform() < 0.3 ? 1 : 0));
    }
    (void)tree;
    const double wrong = 0.6 * (1 - land.ease[static_cast<size_t>(s.strategy)]);
    return {s, Outcome(s, 0.15, wrong)};
  }

  std::pair<State, NodeOutcome> Small(const SearchTree& tree, const StepPlan& plan) {
    State s = states[static_cast<size_t>(plan.parent)];
    const NodeOutcome& from = tree.node(plan.parent).outcome;
    if (!from.correct) {  // Fixing a broken kernel.
      return {s, Outcome(s, 0.15, 0.35)};
    }
    const double improve = 0.35 * (1 - static_cast<double>(s.level) / Landscape::kLevels);
    if (Uniform() < improve) {
      s.level += 1;
    }
    return {s, Outcome(s, 0.10, 0.25)};
  }
};

constexpr int kCheckpoints[] = {5, 10, 25, 50, 100, 200};

}  // namespace
}  // namespace adaexplore

int main(int argc, char** argv) {
  using namespace adaexplore;  // NOLINT: a benchmark's main.
  CLI::App app{"AdaExplore vs the release's baselines on a synthetic landscape (a simulation)"};
  int tasks = 300;
  int steps = 100;
  uint64_t seed = 1;
  std::string json_out;
  app.add_option("--tasks", tasks, "Seeded synthetic tasks");
  app.add_option("--steps", steps, "Steps per task");
  app.add_option("--seed", seed, "First seed");
  app.add_option("--json-out", json_out, "Write the figures here");
  CLI11_PARSE(app, argc, argv);

  const std::vector<SearchMethod> methods = AllSearchMethods();
  nlohmann::json figures = {
      {"tasks", tasks}, {"steps", steps}, {"methods", nlohmann::json::object()}};
  std::printf("%-11s %6s %12s %10s %10s %12s\n", "method", "step", "speedup@10", "fast_1.2",
              "fast_2", "oracle_frac");
  for (SearchMethod method : methods) {
    std::map<int, std::vector<double>> best_at;
    std::vector<double> oracle_fraction;
    for (int task = 0; task < tasks; ++task) {
      std::mt19937_64 land_random(seed * 1'000'003 + static_cast<uint64_t>(task));
      const Landscape land(land_random);
      std::mt19937_64 random(seed * 7'919 + static_cast<uint64_t>(task) * 31 +
                             static_cast<uint64_t>(method));
      Simulator sim{land, random};
      SearchTree tree;
      double best = 0;
      for (int step = 1; step <= steps; ++step) {
        StepPlan plan = PlanStep(tree, method, {}, random);
        auto [state, outcome] =
            plan.kind == MoveKind::kLarge ? sim.Large(tree, plan) : sim.Small(tree, plan);
        tree.Add(plan.parent, plan.kind, outcome);
        sim.states.push_back(state);
        if (outcome.correct) {
          best = std::max(best, outcome.speedup);
        }
        for (int checkpoint : kCheckpoints) {
          if (checkpoint == step) {
            best_at[step].push_back(best);
          }
        }
      }
      const double oracle = *std::max_element(land.ceiling.begin(), land.ceiling.end());
      oracle_fraction.push_back(best / std::max(oracle, 1.0));
    }
    nlohmann::json rows = nlohmann::json::object();
    for (const auto& [step, values] : best_at) {
      double capped = 0, fast12 = 0, fast2 = 0;
      for (double v : values) {
        capped += std::min(v, 10.0);
        fast12 += v > 1.2 ? 1 : 0;
        fast2 += v > 2.0 ? 1 : 0;
      }
      const double n = static_cast<double>(values.size());
      rows[std::to_string(step)] = {
          {"speedup", capped / n}, {"fast_1.2", fast12 / n}, {"fast_2", fast2 / n}};
      double oracle_mean = 0;
      for (double f : oracle_fraction) {
        oracle_mean += f;
      }
      std::printf(
          "%-11s %6d %12.3f %10.3f %10.3f %12s\n", std::string(SearchMethodName(method)).c_str(),
          step, capped / n, fast12 / n, fast2 / n,
          step == steps
              ? std::to_string(oracle_mean / static_cast<double>(oracle_fraction.size())).c_str()
              : "");
    }
    figures["methods"][std::string(SearchMethodName(method))] = rows;
  }
  if (!json_out.empty()) {
    std::ofstream(json_out) << JsonText(figures, 2) << "\n";
  }
  return 0;
}
