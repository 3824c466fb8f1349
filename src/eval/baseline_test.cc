#include "eval/baseline.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

WorkerHello H200() {
  WorkerHello hello;
  hello.python = "3.12.3";
  hello.torch = "2.11.0";
  hello.triton = "3.6.0";
  hello.device_kind = DeviceKind::kCuda;
  hello.device_name = "NVIDIA H200";
  return hello;
}

TEST(BaselineTest, KeyChangesWithWhatTheFiguresDependOn) {
  const EvalProfile strict = StrictProfile();
  const std::string key = BaselineKey("abc", strict, true, H200());
  EXPECT_EQ(key, BaselineKey("abc", strict, true, H200()));
  EXPECT_NE(key, BaselineKey("abd", strict, true, H200()));   // Task source.
  EXPECT_NE(key, BaselineKey("abc", strict, false, H200()));  // Without torch.compile.
  EXPECT_NE(key, BaselineKey("abc", PaperProfile(), true, H200()));
  EvalProfile fewer = strict;
  fewer.job.timed_runs = 50;
  EXPECT_NE(key, BaselineKey("abc", fewer, true, H200()));
  EvalProfile fixed = strict;  // The same runs at most, but no stopping early.
  fixed.job.timing_precision = fixed.job.timing_budget_ms = 0;
  EXPECT_NE(key, BaselineKey("abc", fixed, true, H200()));
  WorkerHello newer = H200();
  newer.torch = "2.12.0";  // New software: measured again.
  EXPECT_NE(key, BaselineKey("abc", strict, true, newer));
  WorkerHello other_python = H200();
  other_python.python = "3.13.0";
  EXPECT_NE(key, BaselineKey("abc", strict, true, other_python));
  WorkerHello other_gpu = H200();
  other_gpu.device_name = "NVIDIA A100-SXM4-80GB";
  EXPECT_NE(key, BaselineKey("abc", strict, true, other_gpu));
  // Checking settings do not change how the reference runs.
  EvalProfile looser = strict;
  looser.job.atol = looser.job.rtol = 1e-2;
  looser.job.trials = 1;
  EXPECT_EQ(key, BaselineKey("abc", looser, true, H200()));
}

TEST(BaselineTest, JobAsksForTheReferenceAlone) {
  const SourceFile task{.path = "t.py", .name = "t", .source = "src", .sha256 = "00ff00ff00ff00"};
  const nlohmann::json job = BaselineJob(task, StrictProfile(), true, DeviceKind::kCuda);
  EXPECT_TRUE(job["options"]["baseline"].get<bool>());
  EXPECT_TRUE(job["options"]["compile_baseline"].get<bool>());
  EXPECT_EQ(job["options"]["device"], "cuda");
  EXPECT_EQ(job["candidate"]["source"], "");
  EXPECT_EQ(job["task"]["source"], "src");
  EXPECT_EQ(job["options"]["seed"], 0x00ff00ff00ffULL);
}

TEST(BaselineTest, ReadsFiguresFromFacts) {
  Baseline b;
  ReadBaselineFacts(
      {{"status", "ok"},
       {"notes", {"a note"}},
       {"timing", {{"reference_ms", {1.0, 3.0, 2.0}}, {"compiled_reference_ms", {0.5, 0.5}}}}},
      b);
  ASSERT_TRUE(b.eager && b.compiled);
  EXPECT_EQ(b.eager_ms(), 2.0);
  EXPECT_EQ(b.compiled_ms(), 0.5);
  EXPECT_EQ(b.error, "");
  EXPECT_EQ(b.notes, std::vector<std::string>{"a note"});

  const Baseline again = BaselineFromJson(ToJson(b));
  EXPECT_EQ(again.eager_ms(), 2.0);
  EXPECT_EQ(again.compiled_ms(), 0.5);
  EXPECT_EQ(again.notes, b.notes);
}

TEST(BaselineTest, CompileFailureLeavesEagerAndNoCompiled) {
  Baseline b;
  ReadBaselineFacts({{"status", "ok"},
                     {"notes", {"torch.compile baseline failed: BackendCompilerFailed: x"}},
                     {"timing", {{"reference_ms", {1.0}}, {"compiled_reference_ms", nullptr}}}},
                    b);
  EXPECT_EQ(b.eager_ms(), 1.0);
  EXPECT_FALSE(b.compiled_ms());
  EXPECT_EQ(b.error, "");
}

TEST(BaselineTest, FailuresBecomeErrorsNotFigures) {
  Baseline broken;
  ReadBaselineFacts({{"status", "task_error"}, {"error", {{"message", "no such op"}}}}, broken);
  EXPECT_FALSE(broken.eager_ms());
  EXPECT_EQ(broken.error, "task_error: no such op");
  Baseline junk;
  ReadBaselineFacts({{"status", "ok"}, {"timing", {{"reference_ms", {"fast"}}}}}, junk);
  EXPECT_FALSE(junk.eager_ms());
  Baseline none;
  ReadBaselineFacts(nlohmann::json(), none);
  EXPECT_EQ(none.error, "malformed facts from the worker: facts without a status");
  EXPECT_FALSE(BaselineFromJson("not an object").eager_ms());
}

TEST(BaselineTest, TrimmedMeanProfileReportsItsStatistic) {
  Baseline b;
  b.statistic = Statistic::kTrimmedMean;
  ReadBaselineFacts({{"status", "ok"}, {"timing", {{"reference_ms", {1.0, 2.0, 6.0}}}}}, b);
  ASSERT_TRUE(b.eager);
  EXPECT_DOUBLE_EQ(*b.eager_ms(), b.eager->trimmed_mean_ms);
}

}  // namespace
}  // namespace adaexplore
