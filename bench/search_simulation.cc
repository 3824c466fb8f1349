// bench/search_simulation: AdaExplore against parallel sampling (PS) and iterative refinement
// (IR) on a synthetic landscape of kernel strategies, over many seeded tasks. A SIMULATION: a
// scripted "LLM" stands in for the model and the harness; it shows how the policies behave on a
// landscape with the shape the paper describes (easy strategies with low ceilings, rarer ones
// with high ceilings, failures everywhere), not what any model would achieve. The assumptions
// are the constants below and are documented in docs/simulation.md.
//
//   build/bench/search_simulation --tasks 300 --steps 100 --in-flight 1,2,4,8 --json-out FILE

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
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

// How long a step takes in the simulated wall clock: each LLM call a lognormal draw (median
// kCallMedianS, a long tail), two calls for a small step (reviser and tuner), then one
// evaluation. Drawn from its own generator, so the search's draws are the same at any K.
constexpr double kCallMedianS = 30;
constexpr double kCallSigma = 0.5;
constexpr double kEvaluationS = 5;

struct TaskRun {
  std::map<int, double> best_at;  // Best correct speedup after each checkpoint's steps.
  std::map<int, double> wall_at;  // Simulated seconds until that many steps were recorded.
  double best = 0;
};

// One task's search with up to `in_flight` steps at once: a step is planned when it starts,
// with the steps still running as pending (virtual losses), and its kernel is made when it ends
// (the model answers from the tree it was shown, plus what its parent is). At 1 the order of
// draws is the sequential search's exactly.
// `virtual_loss` false: the steps in flight are not shown to selection (the ablation).
TaskRun SimulateTask(SearchMethod method, int in_flight, bool virtual_loss, int steps,
                     const Landscape& land, std::mt19937_64& random,
                     std::mt19937_64& clock_random) {
  struct Running {
    double ends = 0;
    StepPlan plan;
  };
  Simulator sim{land, random};
  SearchTree tree;
  std::vector<Running> running;
  std::lognormal_distribution<double> call(std::log(kCallMedianS), kCallSigma);
  TaskRun out;
  double now = 0;
  int started = 0;
  while (tree.size() - 1 < steps) {
    while (static_cast<int>(running.size()) < in_flight && started < steps) {
      std::vector<PendingStep> pending;
      for (const Running& r : virtual_loss ? running : std::vector<Running>{}) {
        pending.push_back({.parent = r.plan.parent, .kind = r.plan.kind});
      }
      StepPlan plan = PlanStep(tree, method, {}, random, pending);
      const double calls = plan.kind == MoveKind::kSmall ? call(clock_random) + call(clock_random)
                                                         : call(clock_random);
      running.push_back({.ends = now + calls + kEvaluationS, .plan = std::move(plan)});
      ++started;
    }
    const auto next =
        std::min_element(running.begin(), running.end(),
                         [](const Running& a, const Running& b) { return a.ends < b.ends; });
    now = next->ends;
    const StepPlan plan = next->plan;
    running.erase(next);
    auto [state, outcome] =
        plan.kind == MoveKind::kLarge ? sim.Large(tree, plan) : sim.Small(tree, plan);
    tree.Add(plan.parent, plan.kind, outcome);
    sim.states.push_back(state);
    if (outcome.correct) {
      out.best = std::max(out.best, outcome.speedup);
    }
    const int done = tree.size() - 1;
    for (int checkpoint : kCheckpoints) {
      if (checkpoint == done) {
        out.best_at[done] = out.best;
        out.wall_at[done] = now;
      }
    }
  }
  return out;
}

}  // namespace
}  // namespace adaexplore

int main(int argc, char** argv) {
  using namespace adaexplore;  // NOLINT: a benchmark's main.
  CLI::App app{"AdaExplore vs the release's baselines on a synthetic landscape (a simulation)"};
  int tasks = 300;
  int steps = 100;
  uint64_t seed = 1;
  std::vector<int> in_flight = {1};
  bool ablate = false;
  std::string json_out;
  app.add_option("--tasks", tasks, "Seeded synthetic tasks");
  app.add_option("--steps", steps, "Steps per task");
  app.add_option("--seed", seed, "First seed");
  app.add_option("--in-flight", in_flight,
                 "Steps of a task in flight at once, comma-separated (AdaExplore beyond 1)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_flag("--ablate-virtual-loss", ablate,
               "Also run each K above 1 without the virtual losses");
  app.add_option("--json-out", json_out, "Write the figures here");
  CLI11_PARSE(app, argc, argv);

  nlohmann::json figures = {{"tasks", tasks},
                            {"steps", steps},
                            {"call_median_s", kCallMedianS},
                            {"call_sigma", kCallSigma},
                            {"evaluation_s", kEvaluationS},
                            {"methods", nlohmann::json::object()}};
  std::printf("%-21s %6s %12s %10s %10s %12s %10s\n", "method", "step", "speedup@10", "fast_1.2",
              "fast_2", "oracle_frac", "wall_h");
  struct Variant {
    SearchMethod method;
    int k = 1;
    bool virtual_loss = true;
  };
  std::vector<Variant> runs;
  for (SearchMethod method : AllSearchMethods()) {
    runs.push_back({.method = method});
  }
  for (int k : in_flight) {
    if (k > 1) {
      runs.push_back({.method = SearchMethod::kAdaExplore, .k = k});
      if (ablate) {
        runs.push_back({.method = SearchMethod::kAdaExplore, .k = k, .virtual_loss = false});
      }
    }
  }
  for (const auto& [method, k, virtual_loss] : runs) {
    std::map<int, std::vector<double>> best_at;
    std::map<int, double> wall_sum;
    std::vector<double> oracle_fraction;
    for (int task = 0; task < tasks; ++task) {
      std::mt19937_64 land_random(seed * 1'000'003 + static_cast<uint64_t>(task));
      const Landscape land(land_random);
      std::mt19937_64 random(seed * 7'919 + static_cast<uint64_t>(task) * 31 +
                             static_cast<uint64_t>(method));
      std::mt19937_64 clock_random(seed * 104'729 + static_cast<uint64_t>(task));
      const TaskRun run = SimulateTask(method, k, virtual_loss, steps, land, random, clock_random);
      for (const auto& [step, best] : run.best_at) {
        best_at[step].push_back(best);
        wall_sum[step] += run.wall_at.at(step);
      }
      const double oracle = *std::max_element(land.ceiling.begin(), land.ceiling.end());
      oracle_fraction.push_back(run.best / std::max(oracle, 1.0));
    }
    const std::string name = std::string(SearchMethodName(method)) +
                             (k > 1 ? " K=" + std::to_string(k) : "") +
                             (virtual_loss ? "" : " no-VL");
    nlohmann::json rows = nlohmann::json::object();
    for (const auto& [step, values] : best_at) {
      double capped = 0, fast12 = 0, fast2 = 0;
      for (double v : values) {
        capped += std::min(v, 10.0);
        fast12 += v > 1.2 ? 1 : 0;
        fast2 += v > 2.0 ? 1 : 0;
      }
      const double n = static_cast<double>(values.size());
      const double wall_h = wall_sum[step] / n / 3600;
      rows[std::to_string(step)] = {{"speedup", capped / n},
                                    {"fast_1.2", fast12 / n},
                                    {"fast_2", fast2 / n},
                                    {"wall_h", wall_h}};
      double oracle_mean = 0;
      for (double f : oracle_fraction) {
        oracle_mean += f;
      }
      std::printf(
          "%-21s %6d %12.3f %10.3f %10.3f %12s %10.2f\n", name.c_str(), step, capped / n,
          fast12 / n, fast2 / n,
          step == steps
              ? std::to_string(oracle_mean / static_cast<double>(oracle_fraction.size())).c_str()
              : "",
          wall_h);
    }
    figures["methods"][name] = rows;
  }
  if (!json_out.empty()) {
    std::ofstream(json_out) << JsonText(figures, 2) << "\n";
  }
  return 0;
}
