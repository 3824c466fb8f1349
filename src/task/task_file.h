#pragma once

// ReadTaskFile: a task of any kind (task/task_kind.h) read into a SourceFile, with what its kind
// needs beside the file (its row's read_beside: a FlashInfer-Trace definition's workloads).

#include <nlohmann/json.hpp>
#include <string>

#include "core/result.h"
#include "task/source_file.h"

namespace adaexplore {

Result<SourceFile> ReadTaskFile(const std::string& path);

// What a task is beside its name and source, for the run database: its kind, path, workloads and
// data root. TaskFromStored makes the task again from the three (a null `file`: KernelBench).
nlohmann::json TaskFileJson(const SourceFile& task);
SourceFile TaskFromStored(const std::string& name, const std::string& source,
                          const nlohmann::json& file);

}  // namespace adaexplore
