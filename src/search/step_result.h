#pragma once

// What the search reads of one evaluation: the record prompts show of a node, the task's roofline
// for the proposer, whether the kernel compiled (for the reward), whether it is a new best, and a
// new best's confirmation by a second measurement.
//
//   KernelRecord r = RecordOf(node, code, result);  // verdict, speedup, runtime, profile line
//   if (result.speedup && IsNewBest(tree, *result.speedup)) { /* measure again */ }
//   EvalResult kept = Confirmed(first, second);

#include <optional>
#include <string>

#include "eval/verdict.h"
#include "prompt/prompts.h"
#include "search/tree.h"

namespace adaexplore {

// A verdict past "does not compile or load" counts as compiled for the reward.
bool Compiled(Verdict verdict);

// The node's record, as prompts show it: its times are the ones its speedup compares (the
// kernels' in the kernel scope, the timed calls' otherwise).
KernelRecord RecordOf(int node, const std::string& code, const EvalResult& result);

// The task's speed of light as a GPU evaluation measured it, for the proposer; nullopt without
// one (on the CPU, or without the device's ceilings).
std::optional<TaskRoofline> RooflineOf(const EvalResult& result);

// True when `speedup` beats every correct node of `tree` (a barred one beats none).
bool IsNewBest(const SearchTree& tree, double speedup);

// What the search keeps of a node's (final) evaluation; `size_specific_best` is the run's
// setting (RunSpec): off, a kernel correct at the task's sizes only is marked sizes_only.
NodeOutcome OutcomeOf(const EvalResult& result, bool size_specific_best);

// TaskSummary's best_verdict for a best that is correct at the task's sizes only, where the run
// does not count it: no other kernel was correct at every size set.
inline constexpr const char* kSizesOnlyBest = "correct_at_task_sizes_only";
// The same for a best compute-sanitizer found errors in (or could not run to the end): no other
// kernel was correct and vouched for.
inline constexpr const char* kUnsafeBest = "correct_but_unsafe";

// A new best after its second measurement: the second's verdict when it is not correct (a
// flaky kernel is not accepted), else the first with the lower of the two speedups; both results
// are kept in facts "measurements".
EvalResult Confirmed(const EvalResult& first, const EvalResult& second);

}  // namespace adaexplore
