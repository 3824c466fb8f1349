#pragma once

// `adaexplore export`'s use case: each task's best correct kernel of a run database (or of one
// run) in KernelBench's layout, level_<L>_problem_<P>_sample_0_kernel.py (P from the task's
// leading number, L from the task's stored path unless the request says), a FlashInfer-Trace
// definition's as a FlashInfer-Bench Solution with its traces (solutions/, traces/), with
// index.json naming the task, run, node, speedup and file of each and eval_results.json each
// sample's result in KernelBench's format. Files an earlier export listed in index.json and this
// one does not write are removed: a re-export leaves nothing stale.
//
//   ASSIGN_OR_RETURN(ExportOutcome outcome, ExportBestKernels({.db_path = db, .out_dir = out}));

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "core/result.h"

namespace adaexplore {

struct ExportRequest {
  std::string db_path;  // An existing run database: reading it never creates one.
  std::string out_dir;
  std::optional<int64_t> run;  // Unset: every run (the best over them wins).
  std::optional<int> level;    // Unset: each task's own, from its stored path (levelN/...).
};

struct ExportOutcome {
  size_t exported = 0;  // Tasks with a correct kernel, written.
  size_t tasks = 0;     // Tasks of the runs read.
};

// Errors: no run (or not the one asked for) in the database, a file that cannot be written.
Result<ExportOutcome> ExportBestKernels(const ExportRequest& request);

}  // namespace adaexplore
