#include "task/task_file.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/enum_names.h"
#include "sys/fs.h"
#include "task/tritonbench_operator.h"

namespace adaexplore {
namespace {

const std::string kExamples = std::string(ADAEXPLORE_SOURCE_DIR) + "/examples";

// Every kind of the table is named and has its worker module and its prompt file: a kind added
// to the enum and the switch alone fails here, not in a run.
TEST(TaskKindTest, EveryKindHasItsNameWorkerModuleAndPrompt) {
  const auto& names = EnumTraits<TaskKind>::kNames;
  ASSERT_EQ(names.size(), 3U);
  EXPECT_EQ(EnumNameList<TaskKind>(),
            (std::vector<std::string_view>{"kernelbench", "flashinfer", "tritonbench"}));
  const std::string root = ADAEXPLORE_SOURCE_DIR;
  for (const auto& [kind, name] : names) {
    EXPECT_EQ(KindInfo(kind).name, name);
    EXPECT_EQ(EnumFromName<TaskKind>(name), kind);
    EXPECT_TRUE(ReadFile(fmt::format("{}/python/adaexplore_worker/kinds/{}.py", root, name)).ok())
        << name;
    EXPECT_TRUE(ReadFile(fmt::format("{}/prompts/tasks/{}.md", root, name)).ok()) << name;
  }
}

TEST(TaskKindTest, TheFileSaysItsKind) {
  EXPECT_EQ(DetectTaskKind("defs/rmsnorm_h64.json", "{}"), TaskKind::kFlashInfer);
  const std::string separator(kTritonBenchSeparatorWidth, '#');
  EXPECT_EQ(DetectTaskKind("op.py", "import triton\n" + separator + "\ndef test_op():\n  pass\n"),
            TaskKind::kTritonBench);
  // A separator inside a longer line does not count; a test function without Model does.
  EXPECT_EQ(DetectTaskKind("op.py", "x = 1  # " + separator + "#\nclass Model:\n  pass\n"),
            TaskKind::kKernelBench);
  EXPECT_EQ(DetectTaskKind("op.py", "import triton\n\ndef test_op():\n  pass\n"),
            TaskKind::kTritonBench);
  EXPECT_EQ(DetectTaskKind("relu.py", "class Model(nn.Module):\n  pass\ndef test_x():\n  pass\n"),
            TaskKind::kKernelBench);
  EXPECT_EQ(EnumName(TaskKind::kFlashInfer), "flashinfer");
}

TEST(TaskFileTest, ADefinitionComesWithItsWorkloadsAndDataRoot) {
  Result<SourceFile> task =
      ReadTaskFile(kExamples + "/flashinfer/definitions/rmsnorm/rmsnorm_h64.json");
  ASSERT_TRUE(task.ok()) << task.status().ToString();
  EXPECT_EQ(task->kind, TaskKind::kFlashInfer);
  EXPECT_EQ(task->name, "rmsnorm_h64");
  ASSERT_EQ(task->workloads.size(), 3u);
  EXPECT_EQ(task->workloads[1]["uuid"], "rms64-b3");
  EXPECT_EQ(task->workloads[1]["axes"]["batch_size"], 3);
  EXPECT_EQ(task->data_root, kExamples + "/flashinfer");
  EXPECT_FALSE(task->workload.has_value());
}

TEST(TaskFileTest, ADefinitionWithoutWorkloadsIsLeftToTheWorkerToReport) {
  Result<SourceFile> task = ReadTaskFile(kExamples + "/flashinfer/bad/rmsnorm_bad_axis.json");
  ASSERT_TRUE(task.ok()) << task.status().ToString();
  EXPECT_EQ(task->kind, TaskKind::kFlashInfer);
  EXPECT_TRUE(task->workloads.empty());
}

TEST(TaskFileTest, AMalformedWorkloadLineNamesFileAndLine) {
  Result<TempDir> dir = TempDir::Create("adx-task-");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(MakeDirectories(dir->path() + "/definitions/gemm").ok());
  ASSERT_TRUE(MakeDirectories(dir->path() + "/workloads/gemm").ok());
  ASSERT_TRUE(WriteFileAtomic(dir->path() + "/definitions/gemm/g.json",
                              R"({"name": "g", "op_type": "gemm"})")
                  .ok());
  ASSERT_TRUE(
      WriteFileAtomic(dir->path() + "/workloads/gemm/g.jsonl", "{\"workload\": {}}\n{oops\n").ok());
  Result<SourceFile> task = ReadTaskFile(dir->path() + "/definitions/gemm/g.json");
  ASSERT_FALSE(task.ok());
  EXPECT_NE(task.status().message().find("g.jsonl:2"), std::string::npos)
      << task.status().message();
}

TEST(TaskFileTest, KernelBenchAndTritonBenchFilesHaveNoWorkloads) {
  Result<SourceFile> kb = ReadTaskFile(kExamples + "/tasks/relu.py");
  ASSERT_TRUE(kb.ok());
  EXPECT_EQ(kb->kind, TaskKind::kKernelBench);
  Result<SourceFile> tb = ReadTaskFile(kExamples + "/tritonbench/scale_add.py");
  ASSERT_TRUE(tb.ok());
  EXPECT_EQ(tb->kind, TaskKind::kTritonBench);
  EXPECT_TRUE(tb->workloads.empty());
}

TEST(TaskFileTest, ATaskStoredAndReadBackIsTheSameTask) {
  Result<SourceFile> task =
      ReadTaskFile(kExamples + "/flashinfer/definitions/gemm/gemm_n16_k32.json");
  ASSERT_TRUE(task.ok());
  task->check_workloads = {{{"uuid", "left-out"}, {"axes", {{"M", 7}}}}};
  const SourceFile back = TaskFromStored(task->name, task->source, TaskFileJson(*task));
  EXPECT_EQ(back.kind, TaskKind::kFlashInfer);
  EXPECT_EQ(back.sha256, task->sha256);
  EXPECT_EQ(back.path, task->path);
  EXPECT_EQ(back.data_root, task->data_root);
  EXPECT_EQ(back.workloads, task->workloads);
  EXPECT_EQ(back.check_workloads, task->check_workloads);
  // A run recorded before the file was kept: a KernelBench task.
  EXPECT_EQ(TaskFromStored("relu", "import torch\n", nullptr).kind, TaskKind::kKernelBench);
}

}  // namespace
}  // namespace adaexplore
