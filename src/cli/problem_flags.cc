#include "cli/problem_flags.h"

#include "cli/run_setup.h"
#include "task/problems.h"

namespace adaexplore {

void AddProblemFlags(CLI::App* command, ProblemFlags& f) {
  command->add_option("--suite", f.suite,
                      "With --problem: the benchmark whose numbering it uses (tritonbench-g)");
  command->add_option("--problem", f.problems,
                      "Problems of --suite by number: 7, 1-10 or 1,4,9 (1-based, as the "
                      "reference release numbers them)");
  command->add_option("--suite-dir", f.suite_dir,
                      "The suite's folder (default ../shared/data/<suite> beside the project)");
}

Result<std::vector<std::string>> ProblemTaskFiles(const ProblemFlags& f) {
  if (f.suite.empty() && f.problems.empty()) {
    return std::vector<std::string>();
  }
  if (f.suite.empty() || f.problems.empty()) {
    return InvalidArgument(
        "--suite and --problem go together: --suite tritonbench-g --problem "
        "1-20");
  }
  ASSIGN_OR_RETURN(std::vector<int> ids, ParseProblemIds(f.problems));
  return ProblemFiles(
      f.suite, f.suite_dir.empty() ? DefaultSuiteDir(f.suite, ProjectRoot()) : f.suite_dir, ids);
}

}  // namespace adaexplore
