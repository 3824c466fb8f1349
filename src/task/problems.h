#pragma once

// Problems of a benchmark suite addressed by number, as their users address them:
// `--level 2 --problem 40` is KernelBench's level2/40_*.py (the number its file name starts
// with); `--suite tritonbench-g --problem 1-20` is the TritonBench-G operators the reference
// release numbers 1 to 20 (1-based, in the order of TritonBench_G_v1.index.json's
// adaexplore_problem_id).

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace adaexplore {

// "7", "1-10", "1,4,9", "1-3,7": the ids in the order given, each once. Ids are 1-based; a
// malformed part, a zero or a reversed range is an error naming it.
Result<std::vector<int>> ParseProblemIds(std::string_view text);

// The suites that can be addressed by problem number.
inline constexpr std::string_view kKernelBenchSuite = "kernelbench";
inline constexpr std::string_view kTritonBenchSuite = "tritonbench-g";

// The variable naming the folder that holds the suites (kernelbench/, tritonbench-g/,
// flashinfer-trace-v0.1.2/, ...).
inline constexpr std::string_view kDataDirVariable = "ADAEXPLORE_DATA";

// The default folder of `suite`: $ADAEXPLORE_DATA/<suite>; an error saying what to set when the
// variable is not.
Result<std::string> DefaultSuiteDir(std::string_view suite);

// The task files of problems `ids` of `suite` in `dir` (KernelBench: of its `level`, 1 to 4;
// TritonBench-G has no levels: 0). An unknown suite, a missing index or level folder, or an id
// outside it is an error naming the range there is.
Result<std::vector<std::string>> ProblemFiles(std::string_view suite, const std::string& dir,
                                              const std::vector<int>& ids, int level = 0);

}  // namespace adaexplore
