#pragma once

// TaskKind: the format a task file is in. The worker's loader (python/adaexplore_worker/load.py)
// adapts each to the one shape the harness evaluates; outside this component and the loader no
// code branches on it, except where the profile picks a kind's own check (eval/profile.h).

#include <array>
#include <string_view>
#include <utility>

#include "core/enum_names.h"

namespace adaexplore {

enum class TaskKind {
  kKernelBench,  // A Python file with Model, get_inputs, get_init_inputs.
  kFlashInfer,   // A FlashInfer-Trace definition (JSON) with its workloads.
  kTritonBench,  // A TritonBench-G operator file: reference code, separator, test function.
};

template <>
struct EnumTraits<TaskKind> {
  static constexpr std::array<std::pair<TaskKind, std::string_view>, 3> kNames = {{
      {TaskKind::kKernelBench, "kernelbench"},
      {TaskKind::kFlashInfer, "flashinfer"},
      {TaskKind::kTritonBench, "tritonbench"},
  }};
};

// The line that splits a TritonBench-G operator file into its code and its test.
inline constexpr size_t kTritonBenchSeparatorWidth = 146;

// The kind of the task file at `path` with content `source`: a .json file is a FlashInfer-Trace
// definition; a Python file with a TritonBench-G separator line, or with a top-level test_*
// function and no class Model, an operator; any other a KernelBench problem.
TaskKind DetectTaskKind(std::string_view path, std::string_view source);

}  // namespace adaexplore
