#include "cli/problem_flags.h"

namespace adaexplore {

void AddProblemFlags(CLI::App* command, ProblemSelection& f) {
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

}  // namespace adaexplore
