#include "app/problem_selection.h"

#include <fmt/format.h>

#include "task/problems.h"

namespace adaexplore {

Result<std::vector<std::string>> ProblemTaskFiles(const ProblemSelection& f,
                                                  const ProblemPartNames& names) {
  if (f.suite.empty() && f.problems.empty() && f.level == 0) {
    return std::vector<std::string>();
  }
  const std::string suite =
      f.suite.empty() && f.level != 0 ? std::string(kKernelBenchSuite) : f.suite;
  if (f.problems.empty()) {
    return InvalidArgument(
        fmt::format("{0} is missing: {1} 2 {0} 1-10, or {2} tritonbench-g {0} 1-20", names.problem,
                    names.level, names.suite));
  }
  if (suite.empty()) {
    return InvalidArgument(
        fmt::format("{} {} needs its benchmark: {} N (KernelBench) or {} tritonbench-g",
                    names.problem, f.problems, names.level, names.suite));
  }
  if (suite == kKernelBenchSuite && f.level == 0) {
    return InvalidArgument(fmt::format("{1} kernelbench needs {0}: {0} 2 {2} 1-10", names.level,
                                       names.suite, names.problem));
  }
  ASSIGN_OR_RETURN(std::vector<int> ids, ParseProblemIds(f.problems));
  std::string dir = f.suite_dir;
  if (dir.empty()) {
    ASSIGN_OR_RETURN(dir, DefaultSuiteDir(suite));
  }
  return ProblemFiles(suite, dir, ids, f.level);
}

}  // namespace adaexplore
