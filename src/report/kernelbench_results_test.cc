#include "report/kernelbench_results.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

EvalResult Correct(const std::string& task) {
  EvalResult r{.task = task, .verdict = Verdict::kCorrect, .speedup = 1.6234};
  r.candidate_timing = ComputeTimingStats({0.1171, 0.1172, 0.1189, 0.1143, 0.1251});
  r.reference_timing = ComputeTimingStats({0.19, 0.19, 0.19});
  r.statistic = Statistic::kMedian;
  r.timing_meaningful = true;
  r.profile = "strict";
  r.device = "NVIDIA H200";
  r.worker = "gpu0";
  return r;
}

TEST(KernelBenchResultsTest, ProblemKeysAreTheLeadingNumber) {
  EXPECT_EQ(KernelBenchProblemKey("40_Gemm_Scale"), "40");
  EXPECT_EQ(KernelBenchProblemKey("007_x"), "7");
  EXPECT_EQ(KernelBenchProblemKey("12"), "12");
  EXPECT_EQ(KernelBenchProblemKey("00_x"), "0");
  EXPECT_EQ(KernelBenchProblemKey("20240101123045_x"), "20240101123045");  // No overflow.
  EXPECT_EQ(KernelBenchProblemKey("relu"), "relu");
  EXPECT_EQ(KernelBenchProblemKey("3d_conv"), "3d_conv");  // Not a number then an underscore.
}

TEST(KernelBenchResultsTest, TheExportedFileAndTheResultKeyNameTheSameProblem) {
  EXPECT_EQ(KernelBenchKernelFile("40_Gemm_Scale", 2), "level_2_problem_40_sample_0_kernel.py");
  EXPECT_EQ(KernelBenchKernelFile("007_x", 1), "level_1_problem_7_sample_0_kernel.py");
  EXPECT_EQ(KernelBenchKernelFile("12", 1), "level_1_problem_12_sample_0_kernel.py");
  // std::atoi read these as problems 3 and 20240101 (overflowed); their key is their name.
  EXPECT_EQ(KernelBenchKernelFile("3d_conv", 1), "3d_conv_kernel.py");
  EXPECT_EQ(KernelBenchKernelFile("relu", 1), "relu_kernel.py");
  EXPECT_EQ(KernelBenchKernelFile("20240101123045_x", 1),
            "level_1_problem_20240101123045_sample_0_kernel.py");
}

TEST(KernelBenchResultsTest, AStoredNameThatIsAPathNamesAFileInsideTheFolder) {
  for (const std::string name : {"../../x", "/tmp/x", "..", "9/../../x"}) {
    const std::string file = KernelBenchKernelFile(name, 1);
    EXPECT_EQ(file.find('/'), std::string::npos) << name;
    EXPECT_NE(file.front(), '.') << name;
    EXPECT_TRUE(file.ends_with("_kernel.py")) << name;
  }
}

TEST(KernelBenchResultsTest, ACorrectSampleHasKernelBenchsFieldsAndRounding) {
  const nlohmann::json entry = *KernelBenchSample(Correct("40_Gemm"), 0);
  EXPECT_EQ(entry["sample_id"], 0);
  EXPECT_EQ(entry["compiled"], true);
  EXPECT_EQ(entry["correctness"], true);
  const nlohmann::json& stats = entry["runtime_stats"];
  EXPECT_DOUBLE_EQ(stats["mean"].get<double>(), 0.119);  // 0.11852 to 3 significant digits.
  EXPECT_DOUBLE_EQ(stats["min"].get<double>(), 0.114);
  EXPECT_DOUBLE_EQ(stats["max"].get<double>(), 0.125);
  EXPECT_EQ(stats["num_trials"], 5);
  EXPECT_EQ(stats["hardware"], "NVIDIA H200");
  EXPECT_EQ(stats["device"], "gpu0");
  EXPECT_DOUBLE_EQ(stats["fast_p"].get<double>(), 1.6234);
  EXPECT_DOUBLE_EQ(stats["baseline_time"].get<double>(), 0.19);
  EXPECT_EQ(entry["runtime"], stats["mean"]);
  EXPECT_EQ(entry["metadata"]["hardware"], "NVIDIA H200");
  EXPECT_EQ(entry["metadata"]["adaexplore"]["verdict"], "correct");
  EXPECT_EQ(entry["metadata"]["adaexplore"]["statistic"], "median");
  EXPECT_FALSE(entry["metadata"].contains("correctness_issue"));
}

TEST(KernelBenchResultsTest, FailuresFileTheirReasonUnderKernelBenchsKeys) {
  EvalResult compile{.task = "1_x", .verdict = Verdict::kCompileError, .reason = "SyntaxError"};
  nlohmann::json entry = *KernelBenchSample(compile, 2);
  EXPECT_EQ(entry["sample_id"], 2);
  EXPECT_EQ(entry["compiled"], false);
  EXPECT_EQ(entry["correctness"], false);
  EXPECT_EQ(entry["runtime"], -1.0);
  EXPECT_TRUE(entry["runtime_stats"].empty());
  EXPECT_EQ(entry["metadata"]["compilation_error"], "SyntaxError");

  // A kernel that loads and then fails is compiled, as KernelBench counts it.
  EvalResult runtime{.task = "1_x", .verdict = Verdict::kRuntimeError, .reason = "CUDA error"};
  entry = *KernelBenchSample(runtime, 0);
  EXPECT_EQ(entry["compiled"], true);
  EXPECT_EQ(entry["metadata"]["runtime_error"], "CUDA error");

  EvalResult wrong{.task = "1_x", .verdict = Verdict::kIncorrect, .reason = "max abs error 3"};
  EXPECT_EQ((*KernelBenchSample(wrong, 0))["metadata"]["correctness_issue"], "max abs error 3");
  EvalResult hacked{.task = "1_x", .verdict = Verdict::kRejected, .reason = "aliases its input"};
  EXPECT_EQ((*KernelBenchSample(hacked, 0))["metadata"]["correctness_issue"], "aliases its input");

  // Not the kernel's verdict: no entry.
  EXPECT_FALSE(KernelBenchSample({.verdict = Verdict::kError}, 0).has_value());
  EXPECT_FALSE(KernelBenchSample({.verdict = Verdict::kTaskError}, 0).has_value());
}

TEST(KernelBenchResultsTest, SamplesAreNumberedPerProblemInOrder) {
  EvalResult broken_task{.task = "2_y", .verdict = Verdict::kTaskError};
  EvalResult wrong{.task = "40_Gemm", .verdict = Verdict::kIncorrect};
  const nlohmann::json file =
      KernelBenchResults({Correct("40_Gemm"), broken_task, wrong, Correct("relu")});
  ASSERT_EQ(file.size(), 2u);  // "2" has no entry: its task is broken.
  ASSERT_EQ(file["40"].size(), 2u);
  EXPECT_EQ(file["40"][0]["sample_id"], 0);
  EXPECT_EQ(file["40"][0]["correctness"], true);
  EXPECT_EQ(file["40"][1]["sample_id"], 1);
  EXPECT_EQ(file["40"][1]["correctness"], false);
  EXPECT_EQ(file["relu"][0]["sample_id"], 0);
}

}  // namespace
}  // namespace adaexplore
