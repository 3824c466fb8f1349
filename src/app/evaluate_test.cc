#include "app/evaluate.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

EvalResult Judged(Verdict verdict) {
  EvalResult r;
  r.verdict = verdict;
  return r;
}

// eval exits 0 only when everything asked for was judged: a verdict about the kernel (even
// `incorrect`) counts, a harness or task error, an unreadable file or a problem without
// kernels does not.
TEST(EvaluateOutcomeTest, CompleteOnlyWhenEverythingAskedForWasJudged) {
  EvaluateOutcome outcome;
  outcome.results = {Judged(Verdict::kCorrect), Judged(Verdict::kIncorrect)};
  outcome.judged = 2;
  EXPECT_TRUE(outcome.Complete());

  EvaluateOutcome harness = outcome;
  harness.results[1] = Judged(Verdict::kError);
  EXPECT_FALSE(harness.Complete());

  EvaluateOutcome task = outcome;
  task.results[0] = Judged(Verdict::kTaskError);
  EXPECT_FALSE(task.Complete());

  EvaluateOutcome unreadable = outcome;
  unreadable.results.push_back(Judged(Verdict::kCompileError));  // An unreadable file's.
  EXPECT_FALSE(unreadable.Complete());

  EvaluateOutcome missing = outcome;
  missing.missing.push_back({.task = "kb/level2/7_x.py", .looked_for = "k/7_x/*.py"});
  EXPECT_FALSE(missing.Complete());

  EvaluateOutcome none;
  none.results = {Judged(Verdict::kCompileError)};  // Every file unreadable: nothing judged.
  EXPECT_FALSE(none.Complete());
}

}  // namespace
}  // namespace adaexplore
