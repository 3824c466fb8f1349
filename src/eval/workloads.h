#pragma once

// A task with several workloads (a FlashInfer-Trace definition) is evaluated one workload per
// job; CombineWorkloads makes the task's result from theirs, so the search, the run database and
// the reports see one result per candidate, as for every other task.
//
//   verdict  correct when every workload is; otherwise a harness error or an integrity rejection
//            on any workload first, else the first failing workload's, its reason naming it
//   speedup  the mean of the workloads' speedups (the reference release's fast_p for
//            FlashInfer-Bench), with each workload's figures in facts.workloads

#include <nlohmann/json.hpp>
#include <vector>

#include "eval/verdict.h"
#include "task/source_file.h"

namespace adaexplore {

// One request per workload of `task` (each with `workload` set and its own content hash).
std::vector<SourceFile> SplitWorkloads(const SourceFile& task);

// The task `task` is on `workload` alone, as SplitWorkloads makes each.
SourceFile WorkloadPart(const SourceFile& task, const nlohmann::json& workload);

// `parts[i]` is the result on `task.workloads[i]`.
EvalResult CombineWorkloads(const SourceFile& task, const std::vector<EvalResult>& parts);

// A short name for a workload: its axes ("batch_size=7") or its uuid.
std::string WorkloadLabel(const nlohmann::json& workload);

}  // namespace adaexplore
