#pragma once

// What `eval` (and the benchmarks in bench/) evaluates: the task and candidate files the flags
// name, read. Kernels are found in every layout a user has: KD/<task stem>/*.py, KD/<task
// stem>.py, and KernelBench's flat level_L_problem_P_sample_S_kernel.py (what its generate
// scripts and `adaexplore export` write).

#include <optional>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "eval/verdict.h"

namespace adaexplore {

struct RequestSources {
  std::string task;  // With kernels/kernel_dir.
  std::vector<std::string> kernels;
  std::string kernel_dir;
  std::string tasks_dir;    // Batch form: the kernels of KD against the tasks of TD.
  std::string kernels_dir;  // KD.
  // Task files named by --suite/--problem: with kernels_dir as the batch form's tasks, or one
  // of them with kernels/kernel_dir.
  std::vector<std::string> problems;
  std::string workloads;  // Which workloads of a FlashInfer-Trace definition (--workloads).
};

// A problem asked for by --problem that has no kernels in --kernels-dir, and where they were
// looked for.
struct MissingProblem {
  std::string task;  // Its task file.
  std::string looked_for;

  std::string Line() const;  // "<stem>  no kernels (looked for ...)"
};

struct CollectedRequests {
  std::vector<EvalRequest> requests;
  std::vector<MissingProblem> missing;
  // Candidate files that could not be read as source (not UTF-8, empty, NUL bytes, too big):
  // each one's verdict (compile_error, with the reason), so a batch goes on without it.
  std::vector<EvalResult> unreadable;
};

// KernelBench's flat kernel file name: level_L_problem_P_sample_S_kernel.py.
struct FlatKernelName {
  int level = 0;
  std::string problem;  // As KernelBenchProblemKey writes it: "19".
  int sample = 0;
};
std::optional<FlatKernelName> ParseFlatKernelName(const std::string& file_name);
// Whether a flat-named kernel is one of the task at `task_path`: its problem number, and its
// level when the task's folder says it (level 0: written without one).
bool FlatNameIsFor(const FlatKernelName& name, const std::string& task_path);

// Reads every task and candidate named by `sources`. A missing task, or no candidate at all, is
// an error that says what is missing; a problem without kernels and an unreadable candidate
// are reported in the result instead.
Result<CollectedRequests> CollectRequests(const RequestSources& sources);

}  // namespace adaexplore
