#include "app/problem_selection.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

TEST(ProblemSelectionTest, NothingGivenIsNoTask) {
  Result<std::vector<std::string>> files = ProblemTaskFiles({});
  ASSERT_TRUE(files.ok());
  EXPECT_TRUE(files->empty());
}

TEST(ProblemSelectionTest, APartMissingIsNamedAsTheFrontEndNamesIt) {
  EXPECT_EQ(ProblemTaskFiles({.level = 2}).status().message(),
            "--problem is missing: --level 2 --problem 1-10, or --suite tritonbench-g "
            "--problem 1-20");
  EXPECT_EQ(ProblemTaskFiles({.level = 2}, kProblemArguments).status().message(),
            "'problem' is missing: 'level' 2 'problem' 1-10, or 'suite' tritonbench-g "
            "'problem' 1-20");
  EXPECT_EQ(ProblemTaskFiles({.problems = "3"}).status().message(),
            "--problem 3 needs its benchmark: --level N (KernelBench) or --suite tritonbench-g");
  EXPECT_EQ(ProblemTaskFiles({.suite = "kernelbench", .problems = "3"}, kProblemArguments)
                .status()
                .message(),
            "'suite' kernelbench needs 'level': 'level' 2 'problem' 1-10");
}

}  // namespace
}  // namespace adaexplore
