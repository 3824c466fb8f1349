#include "search/policy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace adaexplore {

double NodeValue(const Node& node, const ExploreOptions& options, int virtual_visits) {
  const int visits = node.visits + virtual_visits;
  if (visits == 0) {
    return 0;
  }
  return options.alpha * node.max_reward +
         (1 - options.alpha) * node.total_reward / static_cast<double>(visits);
}

namespace {

// Per node: the pending steps in its subtree (virtual visits) and those from it (pending
// children).
struct Pending {
  std::vector<int> in_subtree;
  std::vector<int> children;
};

Pending CountPending(const SearchTree& tree, const std::vector<PendingStep>& pending) {
  Pending out{.in_subtree = std::vector<int>(static_cast<size_t>(tree.size())),
              .children = std::vector<int>(static_cast<size_t>(tree.size()))};
  for (const PendingStep& step : pending) {
    ++out.children.at(static_cast<size_t>(step.parent));
    for (int at = step.parent; at >= 0; at = tree.node(at).parent) {
      ++out.in_subtree[static_cast<size_t>(at)];
    }
  }
  return out;
}

}  // namespace

int Select(const SearchTree& tree, const ExploreOptions& options,
           const std::vector<PendingStep>& pending) {
  const Pending counts = CountPending(tree, pending);
  const auto visits = [&](const Node& node) {
    return node.visits + counts.in_subtree[static_cast<size_t>(node.id)];
  };
  const auto value = [&](const Node& node) {
    return NodeValue(node, options, counts.in_subtree[static_cast<size_t>(node.id)]);
  };
  int current = 0;
  while (!tree.node(current).children.empty()) {
    const Node& here = tree.node(current);
    const double log_visits = std::log(static_cast<double>(std::max(visits(here), 1)));
    int best_child = -1;
    double best_ucb = -std::numeric_limits<double>::infinity();
    double best_value = -std::numeric_limits<double>::infinity();
    for (int id : here.children) {
      const Node& child = tree.node(id);
      const double q = value(child);
      const double ucb =
          q + options.exploration * std::sqrt(log_visits / static_cast<double>(visits(child)));
      if (ucb > best_ucb) {  // Strict: the first of equals wins, as Python's max does.
        best_ucb = ucb;
        best_child = id;
      }
      best_value = std::max(best_value, q);
    }
    const double k = static_cast<double>(here.children.size()) +
                     static_cast<double>(counts.children[static_cast<size_t>(current)]);
    const double expand_here =
        best_value + options.exploration * options.expand_ratio * std::sqrt(log_visits / (k * k));
    if (expand_here > best_ucb) {
      return current;
    }
    current = best_child;
  }
  return current;
}

MoveKind ChooseMove(const SearchTree& tree, int node, const ExploreOptions& options,
                    std::mt19937_64& random, const std::vector<PendingStep>& pending) {
  if (node == 0) {
    return MoveKind::kLarge;
  }
  const auto& children = tree.node(node).children;
  auto small = std::count_if(children.begin(), children.end(),
                             [&](int id) { return tree.node(id).created_by == MoveKind::kSmall; });
  small += std::count_if(pending.begin(), pending.end(), [&](const PendingStep& step) {
    return step.parent == node && step.kind == MoveKind::kSmall;
  });
  if (small >= options.small_step_limit) {
    return MoveKind::kLarge;
  }
  std::bernoulli_distribution large(options.p_large);
  return large(random) ? MoveKind::kLarge : MoveKind::kSmall;
}

std::vector<int> SmallStepContext(const SearchTree& tree, int node, const ExploreOptions& options) {
  std::vector<int> path;
  for (int at = node; at > 0; at = tree.node(at).parent) {
    path.push_back(at);
    if (tree.node(at).created_by == MoveKind::kLarge) {
      break;
    }
  }
  std::reverse(path.begin(), path.end());
  const size_t window = static_cast<size_t>(std::max(options.memory_window, 1));
  if (path.size() > window) {
    path.erase(path.begin(), path.end() - static_cast<long>(window));
  }
  return path;
}

std::vector<int> SmallStepComponent(const SearchTree& tree, int node) {
  std::vector<int> component = {node};
  for (size_t i = 0; i < component.size(); ++i) {
    for (int child : tree.node(component[i]).children) {
      if (tree.node(child).created_by == MoveKind::kSmall) {
        component.push_back(child);
      }
    }
  }
  return component;
}

std::vector<int> RepresentativePool(const SearchTree& tree, int node, const ExploreOptions& options,
                                    std::mt19937_64& random) {
  std::vector<int> pool;
  for (int at = node; at > 0; at = tree.node(at).parent) {
    if (tree.node(at).created_by != MoveKind::kLarge) {
      continue;
    }
    std::optional<int> best;
    for (int id : SmallStepComponent(tree, at)) {
      const NodeOutcome& outcome = tree.node(id).outcome;
      if (outcome.correct && (!best || SearchTree::Better(outcome, tree.node(*best).outcome))) {
        best = id;
      }
    }
    if (best) {
      pool.push_back(*best);
    }
  }
  std::reverse(pool.begin(), pool.end());
  const size_t limit = static_cast<size_t>(std::max(options.pool_size, 0));
  if (pool.size() > limit) {
    std::vector<int> sampled;
    std::sample(pool.begin(), pool.end(), std::back_inserter(sampled), limit, random);
    pool = std::move(sampled);  // std::sample keeps the order.
  }
  return pool;
}

std::string_view SearchMethodName(SearchMethod method) {
  switch (method) {
    case SearchMethod::kAdaExplore:
      return "adaexplore";
    case SearchMethod::kParallelSampling:
      return "ps";
    case SearchMethod::kIterativeRefinement:
      return "ir";
    case SearchMethod::kRecentPool:
      return "irl";
    case SearchMethod::kBestPool:
      return "irb";
    case SearchMethod::kRecentElitePool:
      return "irle";
  }
  return "unknown";
}

std::vector<SearchMethod> AllSearchMethods() {
  // The enumerators count up from 0 and SearchMethodName's switch has no default, so a method
  // without a name does not compile and every named one is listed here: none can be forgotten.
  std::vector<SearchMethod> all;
  for (int i = 0; SearchMethodName(static_cast<SearchMethod>(i)) != "unknown"; ++i) {
    all.push_back(static_cast<SearchMethod>(i));
  }
  return all;
}

std::optional<SearchMethod> SearchMethodFromName(std::string_view name) {
  if (name == "irs") {
    return SearchMethod::kIterativeRefinement;
  }
  for (SearchMethod method : AllSearchMethods()) {
    if (SearchMethodName(method) == name) {
      return method;
    }
  }
  return std::nullopt;
}

std::string SearchMethodNames() {
  std::string out;
  for (SearchMethod method : AllSearchMethods()) {
    out += (out.empty() ? "" : ", ") + std::string(SearchMethodName(method));
  }
  return out;
}

namespace {

StepPlan Plan(const SearchTree& tree, int parent, MoveKind kind, const ExploreOptions& options,
              std::mt19937_64& random) {
  StepPlan plan{.parent = parent, .kind = kind};
  plan.context = kind == MoveKind::kSmall ? SmallStepContext(tree, parent, options)
                                          : RepresentativePool(tree, parent, options, random);
  return plan;
}

// The newest `count` kernels, oldest first (steps whose reply held no kernel are not kernels).
std::vector<int> LastKernels(const SearchTree& tree, int count) {
  std::vector<int> last;
  const size_t window = static_cast<size_t>(std::max(count, 0));
  for (int id = tree.size() - 1; id >= 1 && last.size() < window; --id) {
    if (tree.node(id).outcome.has_kernel) {
      last.insert(last.begin(), id);
    }
  }
  return last;
}

// The best `count` kernels, best first; the earlier of equals first, as the release's stable
// sort leaves them.
std::vector<int> BestKernels(const SearchTree& tree, int count) {
  std::vector<int> kernels;
  for (int id = 1; id < tree.size(); ++id) {
    if (tree.node(id).outcome.has_kernel) {
      kernels.push_back(id);
    }
  }
  std::stable_sort(kernels.begin(), kernels.end(), [&](int a, int b) {
    return SearchTree::Better(tree.node(a).outcome, tree.node(b).outcome);
  });
  kernels.resize(std::min(kernels.size(), static_cast<size_t>(std::max(count, 0))));
  return kernels;
}

// IRLE's pool: the newest pool_size / 2 kernels, then up to the rest of pool_size correct kernels
// outside them, drawn one by one without replacement with weights exp(speedup / temperature)
// (numpy's choice(replace=False, p=softmax), which the release calls).
std::vector<int> RecentElitePool(const SearchTree& tree, const ExploreOptions& options,
                                 std::mt19937_64& random) {
  const int recent_count = std::max(options.pool_size, 0) / 2;
  std::vector<int> pool = LastKernels(tree, recent_count);
  std::vector<int> candidates;
  for (int id = 1; id < tree.size(); ++id) {
    if (tree.node(id).outcome.correct && std::find(pool.begin(), pool.end(), id) == pool.end()) {
      candidates.push_back(id);
    }
  }
  const double temperature = std::max(options.softmax_temperature, 1e-6);
  std::vector<double> logits;
  for (int id : candidates) {
    logits.push_back(tree.node(id).outcome.speedup / temperature);
  }
  for (int left = std::max(options.pool_size, 0) - recent_count; left > 0 && !candidates.empty();
       --left) {
    // Against the largest remaining logit, so the best remaining weighs 1 and the weights never
    // all underflow to 0 (which discrete_distribution does not allow), however low the
    // temperature.
    const double top = *std::max_element(logits.begin(), logits.end());
    std::vector<double> weights;
    for (double logit : logits) {
      weights.push_back(std::exp(logit - top));
    }
    std::discrete_distribution<size_t> draw(weights.begin(), weights.end());
    const size_t pick = draw(random);
    pool.push_back(candidates[pick]);
    candidates.erase(candidates.begin() + static_cast<long>(pick));
    logits.erase(logits.begin() + static_cast<long>(pick));
  }
  return pool;
}

}  // namespace

StepPlan PlanStep(const SearchTree& tree, SearchMethod method, const ExploreOptions& options,
                  std::mt19937_64& random, const std::vector<PendingStep>& pending) {
  switch (method) {
    case SearchMethod::kParallelSampling:
      return StepPlan{.parent = 0, .kind = MoveKind::kLarge};
    case SearchMethod::kIterativeRefinement: {
      // One proposal, then small steps on the newest kernel (a proposal again while none has
      // come back with code).
      std::vector<int> last = LastKernels(tree, std::max(options.memory_window, 1));
      if (last.empty()) {
        return StepPlan{.parent = 0, .kind = MoveKind::kLarge};
      }
      const int parent = last.back();
      return StepPlan{.parent = parent, .kind = MoveKind::kSmall, .context = std::move(last)};
    }
    case SearchMethod::kRecentPool:
      return StepPlan{
          .parent = 0, .kind = MoveKind::kLarge, .context = LastKernels(tree, options.pool_size)};
    case SearchMethod::kBestPool:
      return StepPlan{
          .parent = 0, .kind = MoveKind::kLarge, .context = BestKernels(tree, options.pool_size)};
    case SearchMethod::kRecentElitePool:
      return StepPlan{
          .parent = 0, .kind = MoveKind::kLarge, .context = RecentElitePool(tree, options, random)};
    case SearchMethod::kAdaExplore:
      break;
  }
  const int parent = Select(tree, options, pending);
  return Plan(tree, parent, ChooseMove(tree, parent, options, random, pending), options, random);
}

StepPlan OtherMove(const SearchTree& tree, const StepPlan& plan, SearchMethod method,
                   const ExploreOptions& options, std::mt19937_64& random) {
  if (method != SearchMethod::kAdaExplore || plan.parent == 0) {
    return plan;  // The baselines have one kind of move; the root only takes large steps.
  }
  const MoveKind other = plan.kind == MoveKind::kLarge ? MoveKind::kSmall : MoveKind::kLarge;
  return Plan(tree, plan.parent, other, options, random);
}

}  // namespace adaexplore
