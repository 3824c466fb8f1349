#pragma once

// A FlashInfer-Trace definition's result as FlashInfer Trace JSON lines (the dataset's trace.md):
// one Trace per workload, linking the definition, the solution, the workload and its
// evaluation. Statuses: correct is PASSED (with correctness and performance), incorrect is
// INCORRECT_NUMERICAL (INCORRECT_SHAPE or INCORRECT_DTYPE when the reason says so), compile_error
// COMPILE_ERROR, timeout TIMEOUT, and runtime_error, crash and rejected RUNTIME_ERROR (the log
// says which). Harness errors and broken tasks are not the solution's: no line.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "eval/verdict.h"
#include "task/source_file.h"
#include "workers/protocol.h"

namespace adaexplore {

// The Trace lines of `result` on `task` (none for a task of another kind). `hello` describes
// the worker that measured it (the environment); `timestamp` is ISO 8601.
std::vector<nlohmann::json> FlashInferTraces(const SourceFile& task, const SourceFile& candidate,
                                             const EvalResult& result, const WorkerHello& hello,
                                             const std::string& timestamp);

}  // namespace adaexplore
