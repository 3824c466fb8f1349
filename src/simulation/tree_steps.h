#pragma once

// A real search tree's steps as the fitted simulator sees them (docs/simulation.md): each step's
// situation (its move, whether it built on a correct kernel, how that kernel stood against the
// task's best so far), its verdict, and its speed against the kernel it built on. Read from the
// reference release's tree files (showcase/*.json: `steps`, each with node_id, parent_node_id,
// created_by, context_node_ids, score {compiled, correct, fast_p} and error).
//
// The situation is declared once here (StepCell, BaseGap, BaseOf): the reader classifies a real
// step with it and the simulator a planned one, so the fit and its use cannot drift apart.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/enum_names.h"
#include "core/result.h"
#include "search/tree.h"

namespace adaexplore {

// What became of a step: a correct kernel, wrong outputs, or an error (compile or run).
enum class StepVerdict { kCorrect, kWrong, kError };
template <>
struct EnumTraits<StepVerdict> {
  static constexpr std::array<std::pair<StepVerdict, std::string_view>, 3> kNames = {{
      {StepVerdict::kCorrect, "correct"},
      {StepVerdict::kWrong, "wrong"},
      {StepVerdict::kError, "error"},
  }};
};

// The state a step starts from, which its verdict rates depend on: a small step edits its
// parent, correct or not; a large step is shown a pool that holds a correct kernel or none.
enum class StepCell { kSmallFromCorrect, kSmallFromFailed, kLargeWithPool, kLargeFresh };
template <>
struct EnumTraits<StepCell> {
  static constexpr std::array<std::pair<StepCell, std::string_view>, 4> kNames = {{
      {StepCell::kSmallFromCorrect, "small from a correct kernel"},
      {StepCell::kSmallFromFailed, "small from a failed kernel"},
      {StepCell::kLargeWithPool, "large with a correct pool"},
      {StepCell::kLargeFresh, "large from nothing correct"},
  }};
};

// How the kernel a step builds on (its base) stands against the task's best so far: the best
// itself, within kNearBest of it, or further below. Where a step starts shapes its speed change:
// in the reference's trees a step from the best rarely beats it, one from far below often does.
enum class BaseGap { kBest, kNear, kFar };
template <>
struct EnumTraits<BaseGap> {
  static constexpr std::array<std::pair<BaseGap, std::string_view>, 3> kNames = {{
      {BaseGap::kBest, "best"},
      {BaseGap::kNear, "near"},
      {BaseGap::kFar, "far"},
  }};
};
inline constexpr double kNearBest = 0.8;  // A base at >= 0.8 of the best is near it.

BaseGap GapOf(double base, double best);

// How far a base has come from the task's typical fresh kernel (TreeSteps::fresh_scale): returns
// diminish, so a step from a base at kAdvancedFrom times the fresh scale or more gains less.
enum class BaseProgress { kEarly, kAdvanced };
template <>
struct EnumTraits<BaseProgress> {
  static constexpr std::array<std::pair<BaseProgress, std::string_view>, 2> kNames = {{
      {BaseProgress::kEarly, "early"},
      {BaseProgress::kAdvanced, "advanced"},
  }};
};
inline constexpr double kAdvancedFrom = 2.0;

BaseProgress ProgressOf(double base, double fresh_scale);

// A step's situation: its cell, and its base's speed where it has one (its parent's for a small
// step from a correct kernel, else the best correct kernel among those it was shown).
struct StepBase {
  StepCell cell = StepCell::kLargeFresh;
  std::optional<double> speedup;
};
// `parent_speedup`: the parent's speedup when it is correct; `shown`: the speedups of the correct
// kernels the step was shown (its context or pool).
StepBase BaseOf(MoveKind kind, std::optional<double> parent_speedup,
                const std::vector<double>& shown);

struct TreeStep {
  MoveKind kind = MoveKind::kLarge;
  StepCell cell = StepCell::kLargeFresh;
  StepVerdict verdict = StepVerdict::kError;
  double speedup = 0;            // When correct.
  std::optional<double> base;    // The base's speedup, where the step has one.
  BaseGap gap = BaseGap::kBest;  // With a base: against the best correct kernel before the step.
  // With a base: against the tree's fresh scale (early where the tree has none).
  BaseProgress progress = BaseProgress::kEarly;
};

struct TreeSteps {
  std::string name;  // The file's stem: "kb-l2-p18-200".
  std::vector<TreeStep> steps;
  // The task's typical fresh kernel: the median speedup of its correct steps with no base
  // (nullopt when it has none).
  std::optional<double> fresh_scale;
  // How far its search got: the best speedup of the tree over its fresh scale (at least 1; with
  // the fresh scale).
  std::optional<double> headroom;
};

Result<TreeSteps> ReadTreeSteps(const std::string& path);
// Every tree file in `folder` (each *.json but index.json), sorted by name; an error when there
// is none or one does not read.
Result<std::vector<TreeSteps>> ReadTreeFolder(const std::string& folder);

}  // namespace adaexplore
