#include "suite/suite.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sys/fs.h"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

class SuiteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<TempDir> dir = TempDir::Create("suite-test");
    ASSERT_TRUE(dir.ok());
    dir_.emplace(std::move(*dir));
    for (const char* name : {"10_Ten.py", "2_Two.py", "1_One.py", "2_TwoAgain.py"}) {
      std::ofstream(fs::path(dir_->path()) / name) << "class Model: pass\n";
    }
  }
  std::string Name(const std::string& path) { return fs::path(path).filename().string(); }
  std::optional<TempDir> dir_;
};

TEST_F(SuiteTest, TasksSortByProblemNumberNotByText) {
  Result<std::vector<std::string>> files = SuiteTaskFiles("s", dir_->path(), "", std::nullopt);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  ASSERT_EQ(files->size(), 4u);
  EXPECT_EQ(Name((*files)[0]), "1_One.py");
  EXPECT_EQ(Name((*files)[1]), "2_Two.py");
  EXPECT_EQ(Name((*files)[2]), "2_TwoAgain.py");
  EXPECT_EQ(Name((*files)[3]), "10_Ten.py");
}

TEST_F(SuiteTest, ProblemsAndLimitChooseAndAMissingProblemIsNamed) {
  Result<std::vector<std::string>> chosen = SuiteTaskFiles("s", dir_->path(), "10,1", 1);
  ASSERT_TRUE(chosen.ok()) << chosen.status().ToString();
  ASSERT_EQ(chosen->size(), 1u);
  EXPECT_EQ(Name((*chosen)[0]), "10_Ten.py");  // In the order asked, then cut to the limit.
  Result<std::vector<std::string>> missing = SuiteTaskFiles("s", dir_->path(), "3", std::nullopt);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no problem 3"), std::string::npos);
}

TEST(SuiteDirTest, AFolderIsItselfAndKernelBenchLevelsHaveTheReferencesRatio) {
  EXPECT_FALSE(ResolveSuite("/no/such/folder", "").ok());
  EXPECT_DOUBLE_EQ(SuiteExpandRatio("kernelbench:level3"), 0.5);
  EXPECT_DOUBLE_EQ(SuiteExpandRatio("kernelbench:level2"), 1.0);
}

}  // namespace
}  // namespace adaexplore
