#pragma once

// A TritonBench-G operator file: the operator's code, a separator line, then its test function
// (the worker's kinds/tritonbench.py runs both). Here: how such a file is recognised.

#include <cstddef>

#include "task/task_kind.h"

namespace adaexplore {

// The line that splits a TritonBench-G operator file into its code and its test.
inline constexpr size_t kTritonBenchSeparatorWidth = 146;

}  // namespace adaexplore
