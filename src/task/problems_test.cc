#include "task/problems.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "shared_data.h"
#include "sys/fs.h"

namespace adaexplore {
namespace {

TEST(ProblemsTest, IdsComeAsNumbersRangesAndLists) {
  EXPECT_EQ(*ParseProblemIds("7"), std::vector<int>({7}));
  EXPECT_EQ(*ParseProblemIds("1-3,7,2"), std::vector<int>({1, 2, 3, 7}));
  for (const char* bad : {"", "0", "3-1", "a", "1-", "1,,2", "-2", "1.5"}) {
    EXPECT_FALSE(ParseProblemIds(bad).ok()) << bad;
  }
  EXPECT_NE(ParseProblemIds("3-1").status().message().find("backwards"), std::string::npos);
}

TEST(ProblemsTest, TritonBenchIdsAreTheReleasesNumbering) {
  Result<TempDir> dir = TempDir::Create("adx-tbg-");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(WriteFileAtomic(dir->path() + "/TritonBench_G_v1.index.json",
                              R"([{"file": "a.py", "adaexplore_problem_id": 1},
                                  {"file": "b.py", "adaexplore_problem_id": 2}])")
                  .ok());
  Result<std::vector<std::string>> files = ProblemFiles(kTritonBenchSuite, dir->path(), {2, 1});
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  EXPECT_EQ(*files,
            std::vector<std::string>({dir->path() + "/tasks/b.py", dir->path() + "/tasks/a.py"}));
  Result<std::vector<std::string>> missing = ProblemFiles(kTritonBenchSuite, dir->path(), {3});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("problems are 1 to 2"), std::string::npos);
  EXPECT_FALSE(ProblemFiles("kernelbench", dir->path(), {1}).ok());
  EXPECT_FALSE(ProblemFiles(kTritonBenchSuite, dir->path() + "/nowhere", {1}).ok());
}

TEST(ProblemsTest, KernelBenchIdsAreTheNumbersItsFileNamesStartWith) {
  Result<TempDir> dir = TempDir::Create("adx-kb-");
  ASSERT_TRUE(dir.ok());
  std::filesystem::create_directories(dir->path() + "/level2");
  for (const char* name :
       {"1_Conv2D_ReLU.py", "40_Matmul_Scaling.py", "100_Last.py", "notes.md", "x_Bad.py"}) {
    ASSERT_TRUE(WriteFileAtomic(dir->path() + "/level2/" + name, "").ok());
  }
  Result<std::vector<std::string>> files = ProblemFiles(kKernelBenchSuite, dir->path(), {40, 1}, 2);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  EXPECT_EQ(*files, std::vector<std::string>({dir->path() + "/level2/40_Matmul_Scaling.py",
                                              dir->path() + "/level2/1_Conv2D_ReLU.py"}));
  Result<std::vector<std::string>> missing = ProblemFiles(kKernelBenchSuite, dir->path(), {7}, 2);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("KernelBench level 2 has no problem 7: its problems "
                                            "are 1 to 100"),
            std::string::npos)
      << missing.status().message();
  Result<std::vector<std::string>> no_level = ProblemFiles(kKernelBenchSuite, dir->path(), {1}, 3);
  ASSERT_FALSE(no_level.ok());
  EXPECT_NE(no_level.status().message().find("level3"), std::string::npos);
  EXPECT_FALSE(ProblemFiles(kKernelBenchSuite, dir->path(), {1}, 5).ok());
  EXPECT_FALSE(ProblemFiles(kTritonBenchSuite, dir->path(), {1}, 2).ok());  // It has no levels.
}

TEST(ProblemsTest, TheSharedKernelBenchLevelsHoldTheirProblems) {
  const std::string dir = (test_data::SharedDataDirectory() / kKernelBenchSuite).string();
  if (!std::filesystem::exists(dir + "/level2")) {
    GTEST_SKIP() << "../shared/data absent";
  }
  Result<std::vector<std::string>> files = ProblemFiles(kKernelBenchSuite, dir, {40, 1}, 2);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  EXPECT_TRUE(files->front().ends_with("/level2/40_Matmul_Scaling_ResidualAdd.py"))
      << files->front();
  EXPECT_TRUE(ProblemFiles(kKernelBenchSuite, dir, {100}, 1).ok());
}

TEST(ProblemsTest, TheSharedIndexNumbers184Operators) {
  const std::string dir = (test_data::SharedDataDirectory() / kTritonBenchSuite).string();
  if (!std::filesystem::exists(dir + "/TritonBench_G_v1.index.json")) {
    GTEST_SKIP() << "../shared/data absent";
  }
  Result<std::vector<std::string>> files = ProblemFiles(kTritonBenchSuite, dir, {1, 2, 184});
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  EXPECT_TRUE(files->front().ends_with("/tasks/adam_update_triton.py"));
  EXPECT_TRUE(files->at(1).ends_with("/tasks/add_example.py"));
  EXPECT_FALSE(ProblemFiles(kTritonBenchSuite, dir, {185}).ok());
}

TEST(ProblemsTest, TheDefaultSuiteFolderIsUnderTheDataVariable) {
  const char* was = std::getenv(kDataDirVariable.data());
  const std::string saved = was != nullptr ? was : "";
  unsetenv(kDataDirVariable.data());
  const Result<std::string> unset = DefaultSuiteDir(kKernelBenchSuite);
  ASSERT_FALSE(unset.ok());
  EXPECT_NE(unset.status().message().find("ADAEXPLORE_DATA"), std::string::npos);
  EXPECT_NE(unset.status().message().find("--suite-dir"), std::string::npos);
  setenv(kDataDirVariable.data(), "/data/suites", 1);
  EXPECT_EQ(*DefaultSuiteDir(kTritonBenchSuite), "/data/suites/tritonbench-g");
  if (was != nullptr) {
    setenv(kDataDirVariable.data(), saved.c_str(), 1);
  } else {
    unsetenv(kDataDirVariable.data());
  }
}

}  // namespace
}  // namespace adaexplore
