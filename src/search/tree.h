#pragma once

// SearchTree: the AdaExplore search tree of one task. Node 0 is the dummy root (no kernel); every
// other node is one generated and evaluated kernel, made by a large step (regenerate from
// scratch, shown a pool) or a small step (edit its parent). Adding a node back-propagates its
// reward to the root: N += 1, W += r, M = max(M, r) on the node and every ancestor.
//
// The tree holds only what the policy needs (structure, move kinds, outcomes, statistics);
// kernels, prompts and replies live in the run database under the same node ids. Not
// thread-safe: owned by the search's poll loop.

#include <array>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "core/enum_names.h"

namespace adaexplore {

enum class MoveKind { kRoot, kLarge, kSmall };
std::string_view MoveKindName(MoveKind kind);

// What evaluation said about a kernel, as far as the search cares.
struct NodeOutcome {
  bool has_kernel = true;  // False for a step whose LLM reply held no usable kernel.
  bool compiled = false;   // Loaded and ran (any verdict past compile_error).
  bool correct = false;
  // Passed every correctness trial, then timed out while being timed: a slow correct kernel.
  // It earns the slowest correct kernel's reward, and is never a task's best.
  bool correct_untimed = false;
  // Correct at the task's sizes only (wrong at another size set, eval/size_checks.h) in a run
  // that does not let such a kernel be its best (RunSpec::size_specific_best): it keeps its
  // reward, and ranks below every kernel correct at the other sizes too.
  bool sizes_only = false;
  // compute-sanitizer found errors in it, or could not finish its call (eval/sanitizer.h): it
  // keeps its reward and ranks below every kernel it vouched for or did not run on.
  bool unsafe = false;
  double speedup = 0;  // Reference time / kernel time; meaningful only when correct.
  // The task's speed-of-light time over the kernel's (eval/verdict.h), when a GPU measured it.
  std::optional<double> sol_fraction;

  // Correct, but not a kernel the run may take as its best (sizes_only or unsafe).
  bool Barred() const { return correct && (sizes_only || unsafe); }
};

// What a correct kernel's reward measures: its speedup over the reference (the paper's), or its
// fraction of the speed of light (`run --objective sol`; a kernel without one, as on the CPU, is
// rewarded by its speedup).
enum class Objective { kSpeedup, kSol };

template <>
struct EnumTraits<Objective> {
  static constexpr std::array<std::pair<Objective, std::string_view>, 2> kNames = {{
      {Objective::kSpeedup, "speedup"},
      {Objective::kSol, "sol"},
  }};
};

// The reference reward: 0 if it does not compile or load, 0.05 if it runs but is wrong, else a
// linear map of clip(speedup, 0.1, 10) onto [0.4, 1.6] (saturating at 10x); with the `kSol`
// objective, of clip(sol_fraction, 0, 1) onto [0.4, 1.6].
struct RewardOptions {
  double compile_failure = 0.0;
  double incorrect = 0.05;
  double correct_low = 0.4;
  double correct_high = 1.6;
  double speedup_min = 0.1;
  double speedup_max = 10.0;
  Objective objective = Objective::kSpeedup;
};
double Reward(const NodeOutcome& outcome, const RewardOptions& options = {});

struct Node {
  int id = 0;
  int parent = -1;  // -1 for the root.
  MoveKind created_by = MoveKind::kRoot;
  std::vector<int> children;
  NodeOutcome outcome;
  double reward = 0;        // This node's own reward.
  int visits = 0;           // N: nodes in this subtree (itself included).
  double total_reward = 0;  // W.
  double max_reward = 0;    // M.
};

class SearchTree {
 public:
  explicit SearchTree(RewardOptions rewards = {});

  // Adds the kernel made by `kind` from `parent` with its outcome; back-propagates. Returns the id.
  int Add(int parent, MoveKind kind, const NodeOutcome& outcome);

  const Node& node(int id) const { return nodes_.at(static_cast<size_t>(id)); }
  const Node& root() const { return nodes_.front(); }
  int size() const { return static_cast<int>(nodes_.size()); }  // The root included.

  // The task's answer: the node best on (compiled, correct, not sizes_only, speedup), the
  // earliest on ties; nullopt while no kernel exists.
  std::optional<int> GlobalBest() const;

  // True when `a` ranks above `b` on (compiled, correct, not sizes_only, speedup).
  static bool Better(const NodeOutcome& a, const NodeOutcome& b);

 private:
  RewardOptions rewards_;
  std::vector<Node> nodes_;
};

}  // namespace adaexplore
