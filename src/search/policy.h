#pragma once

// The AdaExplore policy over a SearchTree, as the reference release does it (DESIGN.md,
// "Explore — reference constants"); every constant is an ExploreOptions field.
//
//   Select            UCB descent from the root, stopping where "expand here" beats every child
//   ChooseMove        large at the root or under a node with >= 2 small children, else large
//                     with p = 0.2, else small
//   SmallStepContext  the path up to the nearest large-step ancestor, its last 5 nodes
//   RepresentativePool  the best correct kernel of each small-step component along the path to
//                     the root, at most 5, never padded
//
// Pure functions of the tree (and a random source where the reference draws); not thread-safe
// only in that the tree must not change during a call.

#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "search/tree.h"

namespace adaexplore {

struct ExploreOptions {
  double exploration = 0.3;   // c in UCB1 (paper configs, both levels).
  double expand_ratio = 1.0;  // c_e = c * ratio: 1.0 on KernelBench Level 2, 0.5 on Level 3.
  double alpha = 0.0;         // Q = alpha * M + (1 - alpha) * W / N; 0: the average.
  double p_large = 0.2;       // Chance of a large step where none is forced.
  int small_step_limit = 2;   // A node with this many small children gets large steps only.
  int memory_window = 5;      // Nodes in a small step's context.
  int pool_size = 5;          // Most kernels in a large step's pool.
  // IRLE's elite draw: weights exp(speedup / softmax_temperature) over the correct kernels.
  double softmax_temperature = 1.0;
};

// A step planned and not yet recorded (run --in-flight K): `parent` is being expanded by a move
// of `kind`. Selection counts each as a virtual visit with reward 0 on `parent` and every
// ancestor (virtual loss) and as a pending child of `parent`, so steps planned while others are
// in flight spread over the tree as parallel MCTS spreads them. With none pending, every
// function below is the reference's exactly.
struct PendingStep {
  int parent = 0;
  MoveKind kind = MoveKind::kLarge;
};

// Q of a node; `virtual_visits` more visits of reward 0.
double NodeValue(const Node& node, const ExploreOptions& options, int virtual_visits = 0);

// The node to expand next.
int Select(const SearchTree& tree, const ExploreOptions& options,
           const std::vector<PendingStep>& pending = {});

// The move to make from `node`; a pending small step from it counts as a small child.
MoveKind ChooseMove(const SearchTree& tree, int node, const ExploreOptions& options,
                    std::mt19937_64& random, const std::vector<PendingStep>& pending = {});

// A small step's context: node ids from the nearest large-step ancestor (inclusive) down to
// `node`, the last options.memory_window of them, oldest first.
std::vector<int> SmallStepContext(const SearchTree& tree, int node, const ExploreOptions& options);

// The small-step component of `node`: itself and every node reachable through small-step edges.
std::vector<int> SmallStepComponent(const SearchTree& tree, int node);

// A large step's pool from `node`: for each large-step node on the path from `node` to the root,
// the best correct kernel of its small-step component; a random options.pool_size of them when
// there are more. Ordered from the root down.
std::vector<int> RepresentativePool(const SearchTree& tree, int node, const ExploreOptions& options,
                                    std::mt19937_64& random);

// The search methods of the reference release (its agent_entry.py): AdaExplore and its
// baselines. Every baseline step but IR's small ones is a large step from the root; they differ
// in the kernels the proposer is shown.
//   kParallelSampling     "ps": an empty pool, every proposal independent.
//   kIterativeRefinement  "ir" (the release's IRS): one large step, then small steps from the
//                         newest kernel, each seeing the last options.memory_window kernels.
//   kRecentPool           "irl": the last options.pool_size kernels, whatever their verdict.
//   kBestPool             "irb": the best options.pool_size kernels on (compiled, correct,
//                         speedup), the earliest first on ties.
//   kRecentElitePool      "irle": the last pool_size / 2 kernels, and the rest of the pool drawn
//                         without replacement from the other correct kernels with weights
//                         exp(speedup / options.softmax_temperature).
enum class SearchMethod {  // Enumerators count up from 0 (AllSearchMethods).
  kAdaExplore,
  kParallelSampling,
  kIterativeRefinement,
  kRecentPool,
  kBestPool,
  kRecentElitePool
};
std::string_view SearchMethodName(SearchMethod method);
// A method by its name; "irs" is accepted for "ir", the release's own name for it.
std::optional<SearchMethod> SearchMethodFromName(std::string_view name);
// Every method, in declaration order (derived from SearchMethodName's switch: a new method
// needs only its enumerator, its name and its plan).
std::vector<SearchMethod> AllSearchMethods();
// Their names, comma-separated, for help and error text: "adaexplore, ps, ir, irl, irb, irle".
std::string SearchMethodNames();

// One step's plan: expand `parent` with a move of `kind`, showing the model `context` (the pool
// for a large step, the working memory for a small one).
struct StepPlan {
  int parent = 0;
  MoveKind kind = MoveKind::kLarge;
  std::vector<int> context;
};

// `pending`: the task's steps in flight (AdaExplore's selection and move choice see them; the
// baselines' plans do not depend on the tree's statistics).
StepPlan PlanStep(const SearchTree& tree, SearchMethod method, const ExploreOptions& options,
                  std::mt19937_64& random, const std::vector<PendingStep>& pending = {});

// The plan for the other kind of move from the same parent, when `plan` produced no kernel (the
// reference tries the other kind once). For the baselines, the same plan again.
StepPlan OtherMove(const SearchTree& tree, const StepPlan& plan, SearchMethod method,
                   const ExploreOptions& options, std::mt19937_64& random);

}  // namespace adaexplore
