#pragma once

// ReadTaskFile: a task of any kind (task/task_kind.h) read into a SourceFile, with what its kind
// needs beside the file: a FlashInfer-Trace definition's workloads, from the dataset's
// workloads/<op_type>/<name>.jsonl beside definitions/, and the folder their blob paths are
// relative to.

#include <string>

#include "core/result.h"
#include "task/source_file.h"

namespace adaexplore {

Result<SourceFile> ReadTaskFile(const std::string& path);

// The workloads file of the definition at `definition_path` named `name` of `op_type`: the
// dataset root is the folder above definitions/.
std::string WorkloadsPathFor(const std::string& definition_path, const std::string& op_type,
                             const std::string& name);

}  // namespace adaexplore
