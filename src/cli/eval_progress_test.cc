#include "cli/eval_progress.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace adaexplore {
namespace {

using std::chrono::seconds;

TEST(EvalProgressTest, SaysWhatIsJudgedWhatRunsAndWhatIsLeft) {
  const TimePoint start = Clock::now();
  EvalProgress progress(4, start, stderr, /*smart=*/false);
  EXPECT_EQ(progress.Status(start + seconds(5)), "eval: 0/4 judged, 0 correct · 5s");
  progress.OnPhase("a", "reference");
  progress.OnPhase("b", "timing");
  progress.OnPhase("a", "check");
  EvalResult correct;
  correct.verdict = Verdict::kCorrect;
  progress.OnPhase("c", "timing");
  progress.OnPhase("c", "done");
  FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  progress.OnResult(correct, out, "k.py  [relu]  correct\n");
  EXPECT_EQ(std::ftell(out), 22);
  (void)std::fclose(out);
  EXPECT_EQ(progress.Status(start + seconds(90)),
            "eval: 1/4 judged, 1 correct · running: 1 check, 1 timing · 1m30s · about 4m30s left");
  EXPECT_EQ(progress.StatusJson(start + seconds(90)),
            (nlohmann::json{{"command", "eval"},
                            {"done", 1},
                            {"total", 4},
                            {"correct", 1},
                            {"running", {{"check", 1}, {"timing", 1}}},
                            {"elapsed_s", 90.0},
                            {"eta_s", 270.0}}));
}

TEST(EvalProgressTest, ADefinitionsProgressIsCountedInWorkloads) {
  const TimePoint start = Clock::now();
  FILE* err = std::tmpfile();
  ASSERT_NE(err, nullptr);
  EvalProgress progress(1, start, err, /*smart=*/false);
  progress.CountWorkloads(4, 0);
  EvalResult part;
  part.kernel_path = "k.py";
  part.task = "rmsnorm";
  part.verdict = Verdict::kIncorrect;
  part.reason = "max abs error 0.5\nthe rest";
  progress.OnWorkload(part, "batch_size=7", 1, 4);
  EXPECT_EQ(progress.Status(start + seconds(60)),
            "eval: 0/1 judged, 0 correct · workloads 1/4 (1 workload(s) failed) · 1m00s · about "
            "3m00s left");
  const nlohmann::json json = progress.StatusJson(start + seconds(60));
  EXPECT_EQ(json["units_done"], 1);
  EXPECT_EQ(json["units_total"], 4);
  EXPECT_EQ(json["workloads_failed"], 1);
  // The workload's line is written on a stream that is no terminal too.
  std::rewind(err);
  std::string text(256, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), err));
  EXPECT_EQ(text, "k.py  [rmsnorm] workload 2/4 (batch_size=7)  incorrect  max abs error 0.5\n");
  (void)std::fclose(err);
}

TEST(EvalProgressTest, FinishTakesTheStatusLineDownForTheSummary) {
  FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  EvalProgress progress(1, Clock::now(), out, /*smart=*/true);
  progress.OnPhase("a", "check");
  progress.Finish();
  const long drawn = std::ftell(out);
  EXPECT_GT(drawn, 0);  // It was drawn, then erased: the last bytes leave the line empty.
  std::rewind(out);
  std::string text(static_cast<size_t>(drawn), '\0');
  ASSERT_EQ(std::fread(text.data(), 1, text.size(), out), text.size());
  EXPECT_TRUE(text.ends_with("\r\x1b[K")) << text;
  (void)std::fclose(out);
}

TEST(EvalProgressTest, NothingOnAStreamThatIsNotATerminal) {
  FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  {
    EvalProgress progress(2, Clock::now(), out, /*smart=*/false);
    progress.OnPhase("a", "check");
  }
  EXPECT_EQ(std::ftell(out), 0);
  (void)std::fclose(out);
}

}  // namespace
}  // namespace adaexplore
