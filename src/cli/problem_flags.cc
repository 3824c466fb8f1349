#include "cli/problem_flags.h"

#include <fmt/format.h>

#include "task/problems.h"

namespace adaexplore {

void AddProblemFlags(CLI::App* command, ProblemFlags& f) {
  command->add_option("--level", f.level,
                      "With --problem: KernelBench's level (1-4); implies --suite kernelbench");
  command->add_option("--suite", f.suite,
                      "With --problem: the benchmark whose numbering it uses (kernelbench, "
                      "tritonbench-g)");
  command->add_option("--problem", f.problems,
                      "Problems by number: 40, 1-10 or 1,4,9 (KernelBench: the number its file "
                      "name starts with; TritonBench-G: the reference release's 1-based ids)");
  command->add_option("--suite-dir", f.suite_dir,
                      "The suite's folder (default $ADAEXPLORE_DATA/<suite>)");
}

Result<std::vector<std::string>> ProblemTaskFiles(const ProblemFlags& f) {
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
