#pragma once

// Failures for the adapt stage, read from a run database: the steps whose kernel did not compile
// or crashed at run time (the reference's default), optionally those that ran but gave wrong
// numbers. Each carries its error signature (adapt/signature.h); ClusterFailures groups them so
// one LLM call writes the rule for a whole group.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace adaexplore {

struct Failure {
  std::string task;
  std::string model;    // "provider:model" of the run.
  std::string verdict;  // "compile_error", "runtime_error", "incorrect".
  std::string error;    // The full error text (traceback), else the harness's reason.
  std::string kernel;
  std::string source;  // "run 3 node 7".
  std::string signature;
};

struct FailureFilter {
  std::optional<int64_t> run;  // Only this run; every run when empty.
  bool include_incorrect = false;
};

// Failures in the run database at `path`, in run, task and node order.
Result<std::vector<Failure>> ReadFailures(const std::string& path, const FailureFilter& filter);

struct FailureCluster {
  std::string signature;
  std::vector<Failure> failures;  // In input order; the first is shown to the rule writer.
};

// Groups by signature, in order of first appearance. Failures without any error text are left
// out: nothing can be learned from them. A signature without words ("CompilationError: ^") is
// not grouped: each such failure is a cluster of its own.
std::vector<FailureCluster> ClusterFailures(std::vector<Failure> failures);

}  // namespace adaexplore
