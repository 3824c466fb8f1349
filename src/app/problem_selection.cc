#include "app/problem_selection.h"

#include <fmt/format.h>

#include "task/problems.h"

namespace adaexplore {

Result<std::vector<std::string>> ProblemTaskFiles(const ProblemSelection& f) {
  if (f.suite.empty() && f.problems.empty() && f.level == 0) {
    return std::vector<std::string>();
  }
  const std::string suite =
      f.suite.empty() && f.level != 0 ? std::string(kKernelBenchSuite) : f.suite;
  if (f.problems.empty()) {
    return InvalidArgument(
        "--problem is missing: --level 2 --problem 1-10, or --suite tritonbench-g --problem 1-20");
  }
  if (suite.empty()) {
    return InvalidArgument(fmt::format(
        "--problem {} needs its benchmark: --level N (KernelBench) or --suite tritonbench-g",
        f.problems));
  }
  if (suite == kKernelBenchSuite && f.level == 0) {
    return InvalidArgument("--suite kernelbench needs --level: --level 2 --problem 1-10");
  }
  ASSIGN_OR_RETURN(std::vector<int> ids, ParseProblemIds(f.problems));
  std::string dir = f.suite_dir;
  if (dir.empty()) {
    ASSIGN_OR_RETURN(dir, DefaultSuiteDir(suite));
  }
  return ProblemFiles(suite, dir, ids, f.level);
}

}  // namespace adaexplore
