#pragma once

// A FlashInfer-Trace definition (JSON): recognised by its .json name; read with its workloads,
// from the dataset's workloads/<op_type>/<name>.jsonl beside definitions/, and the folder their
// blob paths are relative to; shown to the model as its description, axes, inputs, outputs and
// the entry point's signature in comments, then its reference code. The worker's counterpart is
// kinds/flashinfer.py.

#include <string>

#include "task/task_kind.h"

namespace adaexplore {

// The workloads file of the definition at `definition_path` named `name` of `op_type`: the
// dataset root is the folder above definitions/.
std::string WorkloadsPathFor(const std::string& definition_path, const std::string& op_type,
                             const std::string& name);

}  // namespace adaexplore
