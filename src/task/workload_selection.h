#pragma once

// Which of a FlashInfer-Trace definition's workloads a command evaluates (`--workloads`): the
// first N ("4"), positions A to B counted from 1 ("2-5"), or workloads by uuid or position
// ("w-17,w-40,3"). A definition can hold workloads of half a million rows that take minutes
// each on a CPU; a smoke test, or a search, may want a few.

#include <string>

#include "core/result.h"
#include "task/source_file.h"

namespace adaexplore {

// Keeps the workloads of `task` that `spec` selects, in their order. An empty spec keeps all;
// a task without workloads (not a definition) is left alone. A spec that selects nothing, or
// names a uuid the definition lacks, is an error naming the task and what it has. Of those left
// out, CheckWorkloads' choice becomes task.check_workloads.
Status SelectWorkloads(const std::string& spec, SourceFile& task);

// Of the workloads a selection left out, the ones to check a kernel correct on `kept` at: those
// whose axis values differ from every kept one's, ordered by the product of their integer
// axes; the smallest and the median one (where they differ), smallest first.
std::vector<nlohmann::json> CheckWorkloads(const std::vector<nlohmann::json>& kept,
                                           const std::vector<nlohmann::json>& left_out);

}  // namespace adaexplore
