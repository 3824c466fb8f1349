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
