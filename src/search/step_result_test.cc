#include "search/step_result.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

EvalResult Correct(double speedup, const std::string& worker = "gpu0") {
  EvalResult r;
  r.verdict = Verdict::kCorrect;
  r.reason = "matches the reference on every trial";
  r.speedup = speedup;
  r.worker = worker;
  return r;
}

TEST(StepResultTest, ANewBestIsConfirmedAtTheLowerOfItsTwoSpeedups) {
  const EvalResult first = Correct(3.0, "gpu0");
  EvalResult kept = Confirmed(first, Correct(2.5, "gpu1"));
  EXPECT_EQ(kept.verdict, Verdict::kCorrect);
  EXPECT_DOUBLE_EQ(*kept.speedup, 2.5);
  ASSERT_EQ(kept.facts["measurements"].size(), 2U);
  EXPECT_EQ(kept.facts["measurements"][1]["worker"], "gpu1");
  // A faster second measurement does not raise it.
  EXPECT_DOUBLE_EQ(*Confirmed(first, Correct(4.0)).speedup, 3.0);
  // A second that is not correct is what counts: a flaky kernel is not accepted.
  EvalResult flaky;
  flaky.verdict = Verdict::kIncorrect;
  flaky.reason = "output mismatch";
  flaky.worker = "gpu1";
  kept = Confirmed(first, flaky);
  EXPECT_EQ(kept.verdict, Verdict::kIncorrect);
  EXPECT_EQ(kept.reason, "not confirmed on gpu1: output mismatch");
}

TEST(StepResultTest, ANewBestBeatsEveryCorrectNode) {
  SearchTree tree;
  EXPECT_TRUE(IsNewBest(tree, 0.5));  // Nothing correct yet.
  tree.Add(0, MoveKind::kLarge, {.compiled = true, .correct = true, .speedup = 2.0});
  EXPECT_FALSE(IsNewBest(tree, 2.0));
  EXPECT_TRUE(IsNewBest(tree, 2.1));
}

TEST(StepResultTest, AKernelCorrectAtTheTasksSizesOnlyIsMarkedAndShownToTheLlm) {
  EvalResult r = Correct(4.0);
  r.size_checks = {{.set = "uneven",
                    .sizes = {{"dim", 1001}},
                    .outcome = SizeOutcome::kWrong,
                    .detail = "incorrect: 16 of 16016 elements outside tolerance"}};
  const NodeOutcome outcome = OutcomeOf(r, /*size_specific_best=*/false);
  EXPECT_TRUE(outcome.correct);
  EXPECT_TRUE(outcome.sizes_only);
  EXPECT_DOUBLE_EQ(outcome.speedup, 4.0);
  EXPECT_FALSE(OutcomeOf(r, /*size_specific_best=*/true).sizes_only);
  EXPECT_FALSE(OutcomeOf(Correct(4.0), false).sizes_only);
  const KernelRecord record = RecordOf(1, "code", r);
  EXPECT_EQ(record.other_sizes,
            "correct at the task's sizes only: wrong at dim=1001 (uneven): incorrect: 16 of "
            "16016 elements outside tolerance");
  const std::string shown = PromptSet::FormatKernel(record, "Kernel 1");
  EXPECT_NE(shown.find("Correct at the task's sizes only: wrong at dim=1001 (uneven)"),
            std::string::npos)
      << shown;
  // It beats no correct node for confirm_best, and a correct node beats it.
  SearchTree tree;
  tree.Add(0, MoveKind::kLarge, outcome);
  EXPECT_TRUE(IsNewBest(tree, 1.1));
}

TEST(StepResultTest, AKernelTheSanitizerFoundErrorsInIsBarredAndShownToTheLlm) {
  EvalResult r = Correct(4.0);
  r.sanitizer = {{.tool = "memcheck",
                  .outcome = SanitizerOutcome::kErrors,
                  .errors = 2,
                  .detail = "Invalid __global__ read of size 4 bytes at relu_kernel+0x1d0"}};
  const NodeOutcome outcome = OutcomeOf(r, /*size_specific_best=*/true);
  EXPECT_TRUE(outcome.correct);
  EXPECT_TRUE(outcome.unsafe);
  EXPECT_TRUE(outcome.Barred());
  EXPECT_FALSE(outcome.sizes_only);
  const KernelRecord record = RecordOf(1, "code", r);
  const std::string shown = PromptSet::FormatKernel(record, "Kernel 1");
  EXPECT_NE(shown.find("Not usable as the best: compute-sanitizer memcheck found 2 errors: "
                       "Invalid __global__ read of size 4 bytes at relu_kernel+0x1d0"),
            std::string::npos)
      << shown;
  // A clean run bars nothing; a slower vouched-for kernel ranks above it.
  EvalResult clean = Correct(4.0);
  clean.sanitizer = {{.tool = "memcheck", .outcome = SanitizerOutcome::kClean}};
  EXPECT_FALSE(OutcomeOf(clean, true).Barred());
  SearchTree tree;
  const int unsafe = tree.Add(0, MoveKind::kLarge, outcome);
  EXPECT_TRUE(IsNewBest(tree, 1.1));
  const int slower = tree.Add(0, MoveKind::kLarge, OutcomeOf(Correct(1.1), true));
  EXPECT_EQ(tree.GlobalBest(), slower);
  EXPECT_NE(unsafe, slower);
}

TEST(StepResultTest, TheRecordAndTheRooflineComeFromTheResult) {
  EvalResult r = Correct(2.0);
  r.candidate_timing = TimingStats{.runs = 20, .median_ms = 0.5};
  r.reference_timing = TimingStats{.runs = 20, .median_ms = 1.0};
  r.speed_of_light_ms = 0.25;
  r.facts = {{"roofline", {{"io_bytes", 1e9}, {"flops", 2e9}}}};
  const KernelRecord record = RecordOf(3, "code", r);
  EXPECT_EQ(record.node, 3);
  EXPECT_EQ(record.verdict, "correct");
  EXPECT_DOUBLE_EQ(*record.runtime_ms, 0.5);
  EXPECT_DOUBLE_EQ(*record.reference_ms, 1.0);
  const std::optional<TaskRoofline> roofline = RooflineOf(r);
  ASSERT_TRUE(roofline);
  EXPECT_DOUBLE_EQ(roofline->speed_of_light_ms, 0.25);
  EXPECT_DOUBLE_EQ(*roofline->io_bytes, 1e9);
  EXPECT_DOUBLE_EQ(*roofline->reference_ms, 1.0);
  // A speedup in kernel time: the record's times are the kernels'.
  EvalResult kernel = r;
  kernel.scope = TimingScope::kKernel;
  kernel.candidate_kernel_us = 20.0;
  kernel.reference_kernel_us = 40.0;
  const KernelRecord in_kernel_time = RecordOf(3, "code", kernel);
  EXPECT_DOUBLE_EQ(*in_kernel_time.runtime_ms, 0.02);
  EXPECT_DOUBLE_EQ(*in_kernel_time.reference_ms, 0.04);
  r.speed_of_light_ms.reset();  // The CPU: no roofline.
  EXPECT_FALSE(RooflineOf(r));
  EXPECT_TRUE(Compiled(Verdict::kIncorrect));
  EXPECT_FALSE(Compiled(Verdict::kCompileError));
}

}  // namespace
}  // namespace adaexplore
