#include "report/flashinfer_traces.h"

#include <gtest/gtest.h>

#include "eval/workloads.h"

namespace adaexplore {
namespace {

SourceFile Definition() {
  SourceFile task{.path = "d/gemm/g.json", .name = "gemm_n16_k32", .source = "{}", .sha256 = ""};
  task.kind = TaskKind::kFlashInfer;
  for (int m : {1, 5}) {
    task.workloads.push_back({{"uuid", "m" + std::to_string(m)},
                              {"axes", {{"M", m}}},
                              {"inputs", {{"A", {{"type", "random"}}}}}});
  }
  return task;
}

EvalResult Part(Verdict verdict, std::optional<double> speedup, std::string reason) {
  EvalResult r;
  r.verdict = verdict;
  r.speedup = speedup;
  r.reason = std::move(reason);
  r.max_abs_err = 0.01;
  r.max_rel_err = 0.02;
  if (speedup) {
    r.candidate_timing = ComputeTimingStats({1.0, 1.0, 1.0});
    r.reference_timing = ComputeTimingStats({*speedup, *speedup, *speedup});
  }
  return r;
}

TEST(FlashInferTracesTest, OneTracePerWorkloadWithTheSchemasNullableFields) {
  const SourceFile task = Definition();
  const SourceFile candidate{.path = "s.json",
                             .name = "s",
                             .source = R"({"name": "gemm_triton_v1", "sources": []})",
                             .sha256 = ""};
  const EvalResult r = CombineWorkloads(
      task, {Part(Verdict::kCorrect, 2.0, "ok"), Part(Verdict::kIncorrect, {}, "trial 0: wrong")});
  WorkerHello hello;
  hello.device_name = "NVIDIA H200";
  hello.torch = "2.11.0";
  const std::vector<nlohmann::json> lines =
      FlashInferTraces(task, candidate, r, hello, "2026-12-03T00:00:00Z");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["definition"], "gemm_n16_k32");
  EXPECT_EQ(lines[0]["solution"], "gemm_triton_v1");
  EXPECT_EQ(lines[0]["workload"]["uuid"], "m1");
  EXPECT_EQ(lines[0]["workload"]["inputs"]["A"]["type"], "random");
  const nlohmann::json& passed = lines[0]["evaluation"];
  EXPECT_EQ(passed["status"], "PASSED");
  EXPECT_EQ(passed["environment"]["hardware"], "NVIDIA_H200");
  EXPECT_DOUBLE_EQ(passed["performance"]["latency_ms"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(passed["performance"]["reference_latency_ms"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(passed["performance"]["speedup_factor"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(passed["correctness"]["max_absolute_error"].get<double>(), 0.01);
  const nlohmann::json& wrong = lines[1]["evaluation"];
  EXPECT_EQ(wrong["status"], "INCORRECT_NUMERICAL");
  EXPECT_TRUE(wrong["performance"].is_null());
  EXPECT_FALSE(wrong["correctness"].is_null());
}

TEST(FlashInferTracesTest, ErrorsOfTheHarnessAndOtherKindsWriteNothing) {
  const SourceFile task = Definition();
  const SourceFile candidate{
      .path = "k.py", .name = "k", .source = "def run(A, B): pass\n", .sha256 = ""};
  EvalResult r = CombineWorkloads(task, {Part(Verdict::kError, {}, "no worker"),
                                         Part(Verdict::kCompileError, {}, "SyntaxError")});
  const std::vector<nlohmann::json> lines =
      FlashInferTraces(task, candidate, r, WorkerHello(), "t");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["solution"], "k");
  EXPECT_EQ(lines[0]["evaluation"]["status"], "COMPILE_ERROR");
  EXPECT_TRUE(lines[0]["evaluation"]["correctness"].is_null());
  SourceFile kb = task;
  kb.kind = TaskKind::kKernelBench;
  EXPECT_TRUE(FlashInferTraces(kb, candidate, r, WorkerHello(), "t").empty());
}

}  // namespace
}  // namespace adaexplore
