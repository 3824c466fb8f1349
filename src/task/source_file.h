#pragma once

// SourceFile: a task or candidate Python file read into memory, with its name and content hash.
// Files are read once, up front, so an evaluation judges exactly the bytes that were hashed.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "task/task_kind.h"

namespace adaexplore {

struct SourceFile {
  std::string path;
  std::string name;  // File stem: "19_ReLU" for ".../19_ReLU.py".
  std::string source;
  std::string sha256;
  // A task's format, and for a FlashInfer-Trace definition its workloads (each an object of its
  // workloads file), the one a request evaluates (unset: all of them, combined), and the folder
  // blob paths are relative to (task/task_file.h).
  TaskKind kind = TaskKind::kKernelBench;
  std::vector<nlohmann::json> workloads;
  std::optional<nlohmann::json> workload;
  std::string data_root;
  // The definition's own number of workloads when a selection (--workloads) kept fewer; 0: all.
  size_t workloads_total = 0;
  // Up to two of the workloads a selection left out, at axis values the kept ones lack: a
  // kernel correct on the kept ones is checked there too (--size-checks; eval/size_checks.h).
  std::vector<nlohmann::json> check_workloads;
};

// Reads a .py file. Missing, unreadable, empty, binary or oversized files are errors that name
// the file and the problem.
Result<SourceFile> ReadSourceFile(const std::string& path);

// The .py files directly inside `dir`, sorted by name.
Result<std::vector<std::string>> ListPythonFiles(const std::string& dir);

// The .py files directly inside `dir`, sorted by name, and with `with_json` the .json files too:
// a FlashInfer-Trace definition's candidates (Solutions), or a folder of tasks (definitions).
Result<std::vector<std::string>> ListCandidateFiles(const std::string& dir, bool with_json);

}  // namespace adaexplore
