// bench/search_simulation: the search methods (AdaExplore and the release's baselines) over many
// seeded simulated tasks. A SIMULATION: a stand-in for the LLM and the harness makes each step's
// kernel; it shows how the policies behave, not what any model would achieve
// (docs/simulation.md). Two stand-ins:
//   --trees DIR   fitted to real search trees (src/simulation: per step situation, the chance of
//                 each verdict and the speed change), checked on held-out trees first
//   (default)     a synthetic landscape of kernel strategies, the constants below
//
//   build/bench/search_simulation --trees ../shared/data/adaexplore-release/showcase
//       --tasks 500 --seeds 2 --steps 200 --in-flight 1,4 --sweep-defaults --json-out FILE

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "core/json_text.h"
#include "search/policy.h"
#include "simulation/fitted_llm.h"
#include "simulation/held_out.h"

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
// The paper's metrics: the mean of min(speedup, kSpeedupCap), no correct kernel counting 0, and
// the share of tasks strictly above each Fast@ threshold.
constexpr double kSpeedupCap = 10;
constexpr double kFastThresholds[] = {1.0, 1.2, 2.0};
constexpr double kZ95 = 1.959964;

// The stand-in for the LLM and the harness: the kernel a planned step makes, when it ends.
using MakeKernel = std::function<NodeOutcome(const SearchTree&, const StepPlan&)>;

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
TaskRun SimulateTask(SearchMethod method, const ExploreOptions& options, int in_flight,
                     bool virtual_loss, int steps, const MakeKernel& make, std::mt19937_64& random,
                     std::mt19937_64& clock_random) {
  struct Running {
    double ends = 0;
    StepPlan plan;
  };
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
      StepPlan plan = PlanStep(tree, method, options, random, pending);
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
    const NodeOutcome outcome = make(tree, plan);
    tree.Add(plan.parent, plan.kind, outcome);
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

// A method as it is run: its policy, its options, its steps in flight.
struct Variant {
  std::string name;
  SearchMethod method = SearchMethod::kAdaExplore;
  ExploreOptions options;
  int k = 1;
  bool virtual_loss = true;
  std::string against;  // The AdaExplore variant it is paired with; empty: none.
};

// A mean and its 95% interval's half-width (normal approximation).
struct Interval {
  double mean = 0;
  double half = 0;
};

Interval MeanInterval(const std::vector<double>& values) {
  const double n = static_cast<double>(values.size());
  double sum = 0;
  for (double v : values) {
    sum += v;
  }
  const double mean = sum / n;
  double squares = 0;
  for (double v : values) {
    squares += (v - mean) * (v - mean);
  }
  return {mean, values.size() > 1 ? kZ95 * std::sqrt(squares / (n - 1) / n) : 0};
}

// A share's Wilson 95% interval.
std::pair<double, double> Wilson(double successes, double n) {
  const double p = successes / n;
  const double z2 = kZ95 * kZ95;
  const double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const double half = kZ95 * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n);
  return {centre - half, centre + half};
}

// Every variant's best speedup per task (in one order of tasks, so variants pair up) and wall
// time, at each checkpoint.
struct VariantRuns {
  std::map<int, std::vector<double>> best_at;
  std::map<int, double> wall_sum;
  std::vector<double> oracle_fraction;  // Synthetic only: best over the best ceiling.
};

// The simulated world: the fitted model, or the synthetic landscape when there is none.
struct World {
  const StepModel* model = nullptr;
  int tasks = 0;
  int seeds = 1;
  uint64_t seed = 1;
  int steps = 0;
};

VariantRuns RunVariant(const Variant& v, const World& world) {
  VariantRuns runs;
  for (int s = 0; s < world.seeds; ++s) {
    const uint64_t seed = world.seed + static_cast<uint64_t>(s);
    for (int task = 0; task < world.tasks; ++task) {
      // The task's own draws, the same for every variant; then the search's, per method.
      std::mt19937_64 land_random(seed * 1'000'003 + static_cast<uint64_t>(task));
      std::mt19937_64 random(seed * 7'919 + static_cast<uint64_t>(task) * 31 +
                             static_cast<uint64_t>(v.method));
      std::mt19937_64 clock_random(seed * 104'729 + static_cast<uint64_t>(task));
      TaskRun run;
      if (world.model != nullptr) {
        FittedLlm llm(*world.model, world.model->DrawTask(land_random), random);
        run = SimulateTask(
            v.method, v.options, v.k, v.virtual_loss, world.steps,
            [&](const SearchTree& tree, const StepPlan& plan) { return llm.Step(tree, plan); },
            random, clock_random);
      } else {
        const Landscape land(land_random);
        Simulator sim{land, random};
        run = SimulateTask(
            v.method, v.options, v.k, v.virtual_loss, world.steps,
            [&](const SearchTree& tree, const StepPlan& plan) {
              auto [state, outcome] =
                  plan.kind == MoveKind::kLarge ? sim.Large(tree, plan) : sim.Small(tree, plan);
              sim.states.push_back(state);  // The node the caller adds next.
              return outcome;
            },
            random, clock_random);
        const double oracle = *std::max_element(land.ceiling.begin(), land.ceiling.end());
        runs.oracle_fraction.push_back(run.best / std::max(oracle, 1.0));
      }
      for (const auto& [step, best] : run.best_at) {
        runs.best_at[step].push_back(best);
        runs.wall_sum[step] += run.wall_at.at(step);
      }
    }
  }
  return runs;
}

double Capped(double speedup) { return std::min(speedup, kSpeedupCap); }

// A variant's figures at one checkpoint; `against`: AdaExplore's bests on the same tasks, for
// the paired difference (AdaExplore minus this variant) in capped speedup.
nlohmann::json Figures(const std::vector<double>& best, double wall_sum,
                       const std::vector<double>* against) {
  std::vector<double> capped;
  for (double b : best) {
    capped.push_back(Capped(b));
  }
  const Interval speedup = MeanInterval(capped);
  const double n = static_cast<double>(best.size());
  nlohmann::json row = {
      {"speedup", speedup.mean},
      {"speedup_ci95", {speedup.mean - speedup.half, speedup.mean + speedup.half}},
      {"wall_h", wall_sum / n / 3600}};
  for (double threshold : kFastThresholds) {
    const double above = static_cast<double>(
        std::count_if(best.begin(), best.end(), [&](double b) { return b > threshold; }));
    const auto [low, high] = Wilson(above, n);
    const std::string key = fmt::format("fast_{}", threshold);
    row[key] = above / n;
    row[key + "_ci95"] = {low, high};
  }
  if (against != nullptr) {
    std::vector<double> difference;
    for (size_t i = 0; i < best.size(); ++i) {
      difference.push_back(Capped((*against)[i]) - capped[i]);
    }
    const Interval d = MeanInterval(difference);
    row["adaexplore_minus_this"] = d.mean;
    row["adaexplore_minus_this_ci95"] = {d.mean - d.half, d.mean + d.half};
  }
  return row;
}

std::string Row(const std::string& name, int step, const nlohmann::json& f) {
  const auto ci = [&](const std::string& key) {
    return fmt::format("{:.3f} [{:.3f}, {:.3f}]", f[key].get<double>(),
                       f[key + "_ci95"][0].get<double>(), f[key + "_ci95"][1].get<double>());
  };
  std::string diff = "";
  if (f.contains("adaexplore_minus_this")) {
    diff = ci("adaexplore_minus_this");
  }
  return fmt::format("| {} | {} | {} | {} | {} | {} | {:.2f} |\n", name, step, ci("speedup"),
                     ci("fast_1"), ci("fast_1.2"), diff, f["wall_h"].get<double>());
}

// The whole search against the real one, held out: each tree's task searched by AdaExplore `runs`
// times with the model fitted on the other folds (the task's own fresh scale, a ceiling drawn
// from the other trees' headrooms: where its search ended is what is being checked); the mean
// capped best at each checkpoint the tree reached, against the tree's own.
Result<nlohmann::json> CheckTrajectories(const std::vector<TreeSteps>& trees, int folds, int runs,
                                         uint64_t seed) {
  std::map<int, std::vector<double>> real;
  std::map<int, std::vector<double>> simulated;
  for (int fold = 0; fold < folds; ++fold) {
    ASSIGN_OR_RETURN(const StepModel model, FitWithout(trees, folds, fold));
    for (size_t i = 0; i < trees.size(); ++i) {
      const TreeSteps& tree = trees[i];
      if (!HeldOutIn(i, folds, fold) || !tree.fresh_scale) {
        continue;
      }
      double best = 0;
      std::vector<int> reached;
      for (size_t s = 0; s < tree.steps.size(); ++s) {
        if (tree.steps[s].verdict == StepVerdict::kCorrect) {
          best = std::max(best, tree.steps[s].speedup);
        }
        for (int checkpoint : kCheckpoints) {
          if (checkpoint == static_cast<int>(s) + 1) {
            real[checkpoint].push_back(Capped(best));
            reached.push_back(checkpoint);
          }
        }
      }
      for (int r = 0; r < runs; ++r) {
        std::mt19937_64 random(seed * 7'919 + i * 1'009 + static_cast<uint64_t>(r));
        std::mt19937_64 clock_random(random());
        FittedLlm llm(model, model.DrawTask(random, tree.fresh_scale), random);
        const TaskRun run = SimulateTask(
            SearchMethod::kAdaExplore, {}, 1, true, reached.empty() ? 1 : reached.back(),
            [&](const SearchTree& t, const StepPlan& plan) { return llm.Step(t, plan); }, random,
            clock_random);
        for (int checkpoint : reached) {
          simulated[checkpoint].push_back(Capped(run.best_at.at(checkpoint)));
        }
      }
    }
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [checkpoint, values] : real) {
    const Interval r = MeanInterval(values);
    const Interval s = MeanInterval(simulated[checkpoint]);
    rows.push_back({{"step", checkpoint},
                    {"trees", values.size()},
                    {"real", r.mean},
                    {"real_ci95", {r.mean - r.half, r.mean + r.half}},
                    {"simulated", s.mean},
                    {"simulated_ci95", {s.mean - s.half, s.mean + s.half}}});
  }
  return rows;
}

std::string TrajectoryText(const nlohmann::json& rows, int runs) {
  std::string out = fmt::format(
      "Whole searches, held out: each held-out tree's task searched {} times by AdaExplore in "
      "the model fitted on the other folds; mean capped best speedup\n\n"
      "| step | trees | real | simulated |\n|---:|---:|---|---|\n",
      runs);
  for (const nlohmann::json& row : rows) {
    out += fmt::format(
        "| {} | {} | {:.2f} [{:.2f}, {:.2f}] | {:.2f} [{:.2f}, {:.2f}] |\n", row["step"].get<int>(),
        row["trees"].get<size_t>(), row["real"].get<double>(), row["real_ci95"][0].get<double>(),
        row["real_ci95"][1].get<double>(), row["simulated"].get<double>(),
        row["simulated_ci95"][0].get<double>(), row["simulated_ci95"][1].get<double>());
  }
  return out;
}

// The variants: every method at each K steps in flight, paired with AdaExplore at the same K
// (AdaExplore at K > 1 with AdaExplore at 1; without virtual losses too, when ablated); with
// `sweep`, AdaExplore with each default moved one way and the other, paired with its defaults.
std::vector<Variant> Variants(const std::vector<int>& in_flight, bool ablate, bool sweep) {
  std::vector<Variant> runs;
  std::vector<int> ks = in_flight;
  if (std::find(ks.begin(), ks.end(), 1) == ks.end()) {
    ks.insert(ks.begin(), 1);
  }
  for (int k : ks) {
    const std::string suffix = k > 1 ? fmt::format(" K={}", k) : "";
    for (SearchMethod method : AllSearchMethods()) {
      const bool ours = method == SearchMethod::kAdaExplore;
      runs.push_back({.name = std::string(SearchMethodName(method)) + suffix,
                      .method = method,
                      .k = k,
                      .against = ours ? (k > 1 ? "adaexplore" : "") : "adaexplore" + suffix});
      if (ours && ablate && k > 1) {
        runs.push_back({.name = "adaexplore" + suffix + " no-VL",
                        .k = k,
                        .virtual_loss = false,
                        .against = "adaexplore"});
      }
    }
  }
  if (sweep) {
    const ExploreOptions defaults;
    const auto with = [&](const std::string& name, auto change) {
      ExploreOptions options = defaults;
      change(options);
      runs.push_back({.name = "adaexplore " + name, .options = options, .against = "adaexplore"});
    };
    for (double c : {0.1, 1.0}) {
      with(fmt::format("c={}", c), [&](ExploreOptions& o) { o.exploration = c; });
    }
    for (double p : {0.1, 0.4}) {
      with(fmt::format("p_large={}", p), [&](ExploreOptions& o) { o.p_large = p; });
    }
    for (int pool : {3, 8}) {
      with(fmt::format("pool={}", pool), [&](ExploreOptions& o) { o.pool_size = pool; });
    }
    for (int limit : {1, 3}) {
      with(fmt::format("small_limit={}", limit),
           [&](ExploreOptions& o) { o.small_step_limit = limit; });
    }
  }
  return runs;
}

}  // namespace
}  // namespace adaexplore

int main(int argc, char** argv) {
  using namespace adaexplore;  // NOLINT: a benchmark's main.
  CLI::App app{"The search methods on simulated tasks (a simulation, not an LLM)"};
  World world{.tasks = 300, .steps = 100};
  std::string trees_dir;
  HeldOutOptions held_out;
  int trajectory_runs = 200;
  std::vector<int> in_flight = {1};
  bool ablate = false;
  bool sweep = false;
  std::string json_out;
  app.add_option("--trees", trees_dir,
                 "Fit the simulated LLM to the search trees in this folder (showcase/*.json); "
                 "without it, the synthetic landscape");
  app.add_option("--folds", held_out.folds, "Folds of trees for the held-out check")
      ->check(CLI::Range(2, 1000));
  app.add_option("--trajectory-runs", trajectory_runs,
                 "Simulated searches of each held-out tree's task, against the real one")
      ->check(CLI::PositiveNumber);
  app.add_option("--tasks", world.tasks, "Simulated tasks per seed")->check(CLI::PositiveNumber);
  app.add_option("--seeds", world.seeds, "Seeds (each a fresh set of tasks)")
      ->check(CLI::PositiveNumber);
  app.add_option("--steps", world.steps, "Steps per task")->check(CLI::PositiveNumber);
  app.add_option("--seed", world.seed, "First seed");
  app.add_option("--in-flight", in_flight,
                 "Steps of a task in flight at once, comma-separated (AdaExplore beyond 1)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_flag("--ablate-virtual-loss", ablate,
               "Also run each K above 1 without the virtual losses");
  app.add_flag("--sweep-defaults", sweep,
               "Also run AdaExplore with each search default moved both ways");
  app.add_option("--json-out", json_out, "Write the figures here");
  CLI11_PARSE(app, argc, argv);

  nlohmann::json figures = {{"tasks", world.tasks},
                            {"seeds", world.seeds},
                            {"first_seed", world.seed},
                            {"steps", world.steps},
                            {"call_median_s", kCallMedianS},
                            {"call_sigma", kCallSigma},
                            {"evaluation_s", kEvaluationS},
                            {"speedup_cap", kSpeedupCap},
                            {"methods", nlohmann::json::object()}};
  std::optional<StepModel> model;
  if (!trees_dir.empty()) {
    Result<std::vector<TreeSteps>> trees = ReadTreeFolder(trees_dir);
    if (!trees.ok()) {
      fmt::print(stderr, "search_simulation: {}\n", trees.status().ToString());
      return 2;
    }
    Result<HeldOutReport> check = CheckHeldOut(*trees, held_out);
    Result<StepModel> fitted = StepModel::Fit(*trees);
    if (!check.ok() || !fitted.ok()) {
      fmt::print(stderr, "search_simulation: {}\n",
                 (check.ok() ? fitted.status() : check.status()).ToString());
      return 2;
    }
    std::printf("%s\n", HeldOutText(*check, held_out).c_str());
    Result<nlohmann::json> trajectories =
        CheckTrajectories(*trees, held_out.folds, trajectory_runs, world.seed);
    if (!trajectories.ok()) {
      fmt::print(stderr, "search_simulation: {}\n", trajectories.status().ToString());
      return 2;
    }
    std::printf("%s\n", TrajectoryText(*trajectories, trajectory_runs).c_str());

    nlohmann::json names = nlohmann::json::array();
    for (const TreeSteps& tree : *trees) {
      names.push_back(tree.name);
    }
    figures["landscape"] = "fitted";
    figures["trees"] = names;
    figures["held_out"] = HeldOutJson(*check, held_out);
    figures["held_out"]["trajectories"] = *trajectories;
    model = std::move(*fitted);
    world.model = &*model;
  } else {
    figures["landscape"] = "synthetic";
  }
  std::printf(
      "| method | step | speedup (capped at %.0f) | Fast@1.0 | Fast@1.2 | "
      "AdaExplore minus this | wall h |\n|---|---:|---|---|---|---|---:|\n",
      kSpeedupCap);
  std::map<std::string, VariantRuns> ours;  // AdaExplore's variants, for the pairings.
  for (const Variant& v : Variants(in_flight, ablate, sweep)) {
    const VariantRuns runs = RunVariant(v, world);
    nlohmann::json rows = nlohmann::json::object();
    for (const auto& [step, best] : runs.best_at) {
      const auto paired = ours.find(v.against);
      const std::vector<double>* against =
          paired != ours.end() ? &paired->second.best_at.at(step) : nullptr;
      nlohmann::json f = Figures(best, runs.wall_sum.at(step), against);
      if (step == world.steps && !runs.oracle_fraction.empty()) {
        f["oracle_fraction"] = MeanInterval(runs.oracle_fraction).mean;
      }
      std::printf("%s", Row(v.name, step, f).c_str());
      rows[std::to_string(step)] = std::move(f);
    }
    figures["methods"][v.name] = rows;
    if (v.method == SearchMethod::kAdaExplore) {
      ours[v.name] = runs;
    }
  }
  if (!json_out.empty()) {
    std::ofstream(json_out) << JsonText(figures, 2) << "\n";
  }
  return 0;
}
