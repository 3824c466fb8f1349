#pragma once

// ReadTaskFile: a task of any kind (task/task_kind.h) read into a SourceFile, with what its kind
// needs beside the file: a FlashInfer-Trace definition's workloads, from the dataset's
// workloads/<op_type>/<name>.jsonl beside definitions/, and the folder their blob paths are
// relative to.

#include <nlohmann/json.hpp>
#include <string>

#include "core/result.h"
#include "task/source_file.h"

namespace adaexplore {

Result<SourceFile> ReadTaskFile(const std::string& path);

// The workloads file of the definition at `definition_path` named `name` of `op_type`: the
// dataset root is the folder above definitions/.
std::string WorkloadsPathFor(const std::string& definition_path, const std::string& op_type,
                             const std::string& name);

// What a task is beside its name and source, for the run database: its kind, path, workloads and
// data root. TaskFromStored makes the task again from the three (a null `file`: KernelBench).
nlohmann::json TaskFileJson(const SourceFile& task);
SourceFile TaskFromStored(const std::string& name, const std::string& source,
                          const nlohmann::json& file);

}  // namespace adaexplore
