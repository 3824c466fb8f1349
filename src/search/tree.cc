#include "search/tree.h"

#include <algorithm>

#include "core/status.h"

namespace adaexplore {

std::string_view MoveKindName(MoveKind kind) {
  switch (kind) {
    case MoveKind::kRoot:
      return "root";
    case MoveKind::kLarge:
      return "large_step";
    case MoveKind::kSmall:
      return "small_step";
  }
  return "unknown";
}

double Reward(const NodeOutcome& outcome, const RewardOptions& options) {
  if (!outcome.compiled) {
    return options.compile_failure;
  }
  if (!outcome.correct) {
    return outcome.correct_untimed ? options.correct_low : options.incorrect;
  }
  const double span = options.correct_high - options.correct_low;
  if (options.objective == Objective::kSol && outcome.sol_fraction) {
    return options.correct_low + span * std::clamp(*outcome.sol_fraction, 0.0, 1.0);
  }
  const double s = std::clamp(outcome.speedup, options.speedup_min, options.speedup_max);
  return options.correct_low + (options.correct_high - options.correct_low) *
                                   (s - options.speedup_min) /
                                   (options.speedup_max - options.speedup_min);
}

SearchTree::SearchTree(RewardOptions rewards) : rewards_(rewards) {
  nodes_.push_back(Node{.id = 0, .parent = -1, .created_by = MoveKind::kRoot});
}

int SearchTree::Add(int parent, MoveKind kind, const NodeOutcome& outcome) {
  CHECK(parent >= 0 && parent < size());  // Callers add children of existing nodes only.
  CHECK(kind != MoveKind::kRoot);
  const int id = size();
  Node node{.id = id, .parent = parent, .created_by = kind, .outcome = outcome};
  node.reward = Reward(outcome, rewards_);
  nodes_.push_back(node);
  nodes_[static_cast<size_t>(parent)].children.push_back(id);
  const double r = nodes_.back().reward;
  for (int at = id; at >= 0; at = nodes_[static_cast<size_t>(at)].parent) {
    Node& n = nodes_[static_cast<size_t>(at)];
    n.visits += 1;
    n.total_reward += r;
    n.max_reward = n.visits == 1 ? r : std::max(n.max_reward, r);
  }
  return id;
}

bool SearchTree::Better(const NodeOutcome& a, const NodeOutcome& b) {
  if (a.compiled != b.compiled) {
    return a.compiled;
  }
  if (a.correct != b.correct) {
    return a.correct;
  }
  if (a.correct && a.Barred() != b.Barred()) {
    return !a.Barred();
  }
  return a.correct && a.speedup > b.speedup;
}

std::optional<int> SearchTree::GlobalBest() const {
  std::optional<int> best;
  for (int id = 1; id < size(); ++id) {
    if (!best || Better(node(id).outcome, node(*best).outcome)) {
      best = id;
    }
  }
  return best;
}

}  // namespace adaexplore
