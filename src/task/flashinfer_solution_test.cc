#include "task/flashinfer_solution.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace adaexplore {
namespace {

SourceFile Definition() {
  SourceFile task{.path = "d/rmsnorm/rmsnorm_h64.json",
                  .name = "rmsnorm_h64",
                  .source = R"({"name": "rmsnorm_h64", "op_type": "rmsnorm"})",
                  .sha256 = ""};
  task.kind = TaskKind::kFlashInfer;
  return task;
}

const char* kKernel = "import torch\nimport triton\n\ndef run(hidden_states, weight, output):\n";

SolutionOrigin Origin() {
  return {.name = "adaexplore_rmsnorm_h64_r1_n3",
          .model = "openai:m",
          .device = "NVIDIA H100 80GB HBM3",
          .on_gpu = true,
          .found = "run 1, node 3",
          .speedup = 2.5};
}

TEST(FlashInferSolutionTest, ABareEntryPointBecomesASolutionCalledAsTheWorkerFoundIt) {
  const nlohmann::json facts = {
      {"interface", {{"entry_point", "run"}, {"destination_passing_style", true}}}};
  Result<nlohmann::json> s = FlashInferSolution(Definition(), kKernel, facts, Origin());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)["name"], "adaexplore_rmsnorm_h64_r1_n3");
  EXPECT_EQ((*s)["definition"], "rmsnorm_h64");
  EXPECT_EQ((*s)["author"], "adaexplore");
  EXPECT_EQ((*s)["spec"]["language"], "triton");
  EXPECT_EQ((*s)["spec"]["entry_point"], "main.py::run");
  EXPECT_EQ((*s)["spec"]["destination_passing_style"], true);
  EXPECT_EQ((*s)["spec"]["target_hardware"][0], "NVIDIA_H100_80GB_HBM3");
  EXPECT_EQ((*s)["sources"][0]["path"], "main.py");
  EXPECT_EQ((*s)["sources"][0]["content"], kKernel);
  EXPECT_NE((*s)["description"].get<std::string>().find("2.5x"), std::string::npos);
}

TEST(FlashInferSolutionTest, ASeedSolutionKeepsItsSpecUnderTheGivenName) {
  const std::string seed =
      R"({"name": "mine", "definition": "rmsnorm_h64", "author": "me",
          "spec": {"language": "python", "entry_point": "k.py::go"},
          "sources": [{"path": "k.py", "content": "def go(): pass"}]})";
  Result<nlohmann::json> s = FlashInferSolution(Definition(), seed, nlohmann::json(), Origin());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)["name"], "adaexplore_rmsnorm_h64_r1_n3");
  EXPECT_EQ((*s)["author"], "me");
  EXPECT_EQ((*s)["spec"]["entry_point"], "k.py::go");
}

TEST(FlashInferSolutionTest, AResultThatDoesNotSayHowItIsCalledIsAnError) {
  Result<nlohmann::json> s =
      FlashInferSolution(Definition(), kKernel, {{"status", "ok"}}, Origin());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("evaluate the kernel again"), std::string::npos);
}

TEST(FlashInferSolutionTest, PathsFollowTheTraceSetLayoutWithPlainNames) {
  EXPECT_EQ(FlashInferSolutionPath(Definition(), "s1"), "solutions/rmsnorm/rmsnorm_h64/s1.json");
  EXPECT_EQ(FlashInferTracesPath(Definition()), "traces/rmsnorm/rmsnorm_h64.jsonl");
  SourceFile hostile = Definition();
  hostile.source = R"({"op_type": "../../etc"})";
  const std::string path = FlashInferSolutionPath(hostile, "x");
  EXPECT_EQ(std::count(path.begin(), path.end(), '/'), 3) << path;  // One component each.
  EXPECT_EQ(path.find("/."), std::string::npos) << path;
  SourceFile unnamed = Definition();
  unnamed.source = "{}";
  EXPECT_EQ(FlashInferTracesPath(unnamed), "traces/unknown/rmsnorm_h64.jsonl");
}

}  // namespace
}  // namespace adaexplore
