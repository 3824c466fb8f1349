#include "app/eval_requests.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "sys/fs.h"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

constexpr const char* kTask =
    "import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return x\n"
    "def get_inputs():\n    return [torch.randn(4)]\ndef get_init_inputs():\n    return []\n";
constexpr const char* kKernel =
    "import torch\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n"
    "        return x\n";

class EvalRequestsTest : public ::testing::Test {
 protected:
  void Write(const std::string& relative, const std::string& text) {
    const fs::path path = fs::path(dir_.path()) / relative;
    fs::create_directories(path.parent_path());
    ASSERT_TRUE(WriteFileAtomic(path.string(), text).ok()) << path;
  }
  std::string Path(const std::string& relative) const {
    return (fs::path(dir_.path()) / relative).string();
  }
  static std::vector<std::string> Kernels(const CollectedRequests& c) {
    std::vector<std::string> names;
    for (const EvalRequest& r : c.requests) {
      names.push_back(r.task.name + " <- " + fs::path(r.candidate.path).filename().string());
    }
    return names;
  }

  TempDir dir_ = *TempDir::Create("eval-requests");
};

TEST(FlatKernelNameTest, ReadsKernelBenchsOwnFileNames) {
  const std::optional<FlatKernelName> name =
      ParseFlatKernelName("level_1_problem_019_sample_3_kernel.py");
  ASSERT_TRUE(name.has_value());
  EXPECT_EQ(name->level, 1);
  EXPECT_EQ(name->problem, "19");
  EXPECT_EQ(name->sample, 3);
  EXPECT_EQ(ParseFlatKernelName("level_2_problem_0_sample_0_kernel.py")->problem, "0");
  for (const char* other :
       {"level_1_problem_19_sample_0.py", "19_ReLU.py", "level_1_problem_19_sample_0_kernel.py.bak",
        "level_x_problem_1_sample_0_kernel.py"}) {
    EXPECT_FALSE(ParseFlatKernelName(other).has_value()) << other;
  }
}

TEST_F(EvalRequestsTest, ProblemsFindTheirKernelsInEveryLayoutAndTheMissingAreSaid) {
  for (const char* task : {"level1/19_ReLU.py", "level1/20_LeakyReLU.py", "level1/21_Sigmoid.py",
                           "level1/22_Tanh.py"}) {
    Write(task, kTask);
  }
  Write("kernels/19_ReLU/a.py", kKernel);                           // A folder per task.
  Write("kernels/20_LeakyReLU.py", kKernel);                        // A file per task.
  Write("kernels/level_1_problem_21_sample_1_kernel.py", kKernel);  // KernelBench's layout,
  Write("kernels/level_1_problem_21_sample_0_kernel.py", kKernel);  // by sample,
  Write("kernels/level_0_problem_21_sample_2_kernel.py", kKernel);  // written without a level,
  Write("kernels/level_2_problem_21_sample_0_kernel.py", kKernel);  // not another level's.
  Result<CollectedRequests> c =
      CollectRequests({.kernels_dir = Path("kernels"),
                       .problems = {Path("level1/19_ReLU.py"), Path("level1/20_LeakyReLU.py"),
                                    Path("level1/21_Sigmoid.py"), Path("level1/22_Tanh.py")}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(Kernels(*c),
            (std::vector<std::string>{"19_ReLU <- a.py", "20_LeakyReLU <- 20_LeakyReLU.py",
                                      "21_Sigmoid <- level_1_problem_21_sample_0_kernel.py",
                                      "21_Sigmoid <- level_1_problem_21_sample_1_kernel.py",
                                      "21_Sigmoid <- level_0_problem_21_sample_2_kernel.py"}));
  ASSERT_EQ(c->missing.size(), 1U);
  EXPECT_EQ(c->missing[0].Line(),
            "22_Tanh  no kernels (looked for 22_Tanh/, 22_Tanh.py and "
            "level_1_problem_22_sample_*_kernel.py in " +
                Path("kernels") + ")");
  // Nothing at all to evaluate is an error that lists where it looked.
  Result<CollectedRequests> none =
      CollectRequests({.kernels_dir = Path("kernels"), .problems = {Path("level1/22_Tanh.py")}});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("22_Tanh  no kernels (looked for"), std::string::npos)
      << none.status().message();
}

TEST_F(EvalRequestsTest, TheBatchFormMapsFlatNamesToTheirTaskAndGoesOnPastAnUnreadableFile) {
  Write("tasks/19_ReLU.py", kTask);
  Write("tasks/20_LeakyReLU.py", kTask);
  Write("kernels/level_1_problem_19_sample_0_kernel.py", kKernel);
  Write("kernels/level_1_problem_20_sample_0_kernel.py", "x = '\xff\xfe'\n");  // Not UTF-8.
  Write("kernels/20_LeakyReLU/ok.py", kKernel);
  Result<CollectedRequests> c =
      CollectRequests({.tasks_dir = Path("tasks"), .kernels_dir = Path("kernels")});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(Kernels(*c),
            (std::vector<std::string>{"20_LeakyReLU <- ok.py",
                                      "19_ReLU <- level_1_problem_19_sample_0_kernel.py"}));
  ASSERT_EQ(c->unreadable.size(), 1U);
  const EvalResult& bad = c->unreadable[0];
  EXPECT_EQ(bad.verdict, Verdict::kCompileError);
  EXPECT_EQ(bad.task, "20_LeakyReLU");
  EXPECT_EQ(fs::path(bad.kernel_path).filename(), "level_1_problem_20_sample_0_kernel.py");
  EXPECT_NE(bad.reason.find("is not UTF-8 (byte 0xff at offset 5, line 1)"), std::string::npos)
      << bad.reason;
  // A flat name no task has is an error naming the file.
  Write("kernels/level_1_problem_99_sample_0_kernel.py", kKernel);
  Result<CollectedRequests> orphan =
      CollectRequests({.tasks_dir = Path("tasks"), .kernels_dir = Path("kernels")});
  ASSERT_FALSE(orphan.ok());
  EXPECT_NE(orphan.status().message().find("level_1_problem_99_sample_0_kernel.py"),
            std::string::npos);
}

}  // namespace
}  // namespace adaexplore
