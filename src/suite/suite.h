#pragma once

// A suite of tasks for `adaexplore bench`: a folder of task files, or KernelBench's level folder
// named as "kernelbench:levelN"; its task files in problem-number order, optionally only some
// problems or the first K; and the search constant the reference used on it.
//
//   ASSIGN_OR_RETURN(std::string dir, ResolveSuite("kernelbench:level2", ""));
//   ASSIGN_OR_RETURN(std::vector<std::string> files, SuiteTaskFiles("kernelbench:level2", dir,
//                                                                    "1-10", std::nullopt));

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace adaexplore {

// The folder of a suite: DIR itself, or for "kernelbench:levelN" the levelN folder of a
// KernelBench checkout (`kernelbench_dir`, else $KERNELBENCH_DIR, else $ADAEXPLORE_DATA's; either
// the checkout or its KernelBench/ subfolder).
Result<std::string> ResolveSuite(const std::string& suite, const std::string& kernelbench_dir);

// The task files of `dir` (the folder of `suite`) sorted by problem number ("2_..." before
// "10_..."), only the problem numbers `problems` names (task/problems.h syntax; empty: all),
// then at most `limit`. A problem number without a file, or nothing left, is an error.
Result<std::vector<std::string>> SuiteTaskFiles(const std::string& suite, const std::string& dir,
                                                const std::string& problems,
                                                std::optional<int> limit);

// c_e / c the reference used on `suite`: 0.5 on KernelBench Level 3, 1 elsewhere.
double SuiteExpandRatio(const std::string& suite);

}  // namespace adaexplore
