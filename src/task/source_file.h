#pragma once

// SourceFile: a task or candidate Python file read into memory, with its name and content hash.
// Files are read once, up front, so an evaluation judges exactly the bytes that were hashed.

#include <string>
#include <vector>

#include "core/result.h"

namespace adaexplore {

struct SourceFile {
  std::string path;
  std::string name;  // File stem: "19_ReLU" for ".../19_ReLU.py".
  std::string source;
  std::string sha256;
};

// Reads a .py file. Missing, unreadable, empty, binary or oversized files are errors that name
// the file and the problem.
Result<SourceFile> ReadSourceFile(const std::string& path);

// The .py files directly inside `dir`, sorted by name.
Result<std::vector<std::string>> ListPythonFiles(const std::string& dir);

}  // namespace adaexplore
