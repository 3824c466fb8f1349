#pragma once

// Tasks addressed by their benchmark's numbering (task/problems.h): KernelBench's level and
// problem numbers, or a suite's (tritonbench-g) ids, resolved to task files. What `eval`, `run`
// and `bench` read from --level/--suite/--problem, and the MCP tools from their arguments.
//
//   ASSIGN_OR_RETURN(std::vector<std::string> files,
//                    ProblemTaskFiles({.level = 2, .problems = "1-10"}));

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace adaexplore {

struct ProblemSelection {
  std::string suite;  // Empty with a level: kernelbench.
  int level = 0;      // KernelBench's level; 0: none given.
  std::string problems;
  std::string suite_dir;  // Empty: $ADAEXPLORE_DATA/<suite>.
};

// How a front end names the selection's parts in its errors: the CLI's flags, the MCP tools'
// arguments.
struct ProblemPartNames {
  std::string_view level = "--level";
  std::string_view suite = "--suite";
  std::string_view problem = "--problem";
};
inline constexpr ProblemPartNames kProblemFlags{};
inline constexpr ProblemPartNames kProblemArguments{
    .level = "'level'", .suite = "'suite'", .problem = "'problem'"};

// The task files the selection names; none when it is empty, an error naming what is missing
// (in `names`) when only part of it was given.
Result<std::vector<std::string>> ProblemTaskFiles(const ProblemSelection& selection,
                                                  const ProblemPartNames& names = kProblemFlags);

}  // namespace adaexplore
