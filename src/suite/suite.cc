#include "suite/suite.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "sys/fs.h"
#include "task/problems.h"
#include "task/source_file.h"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

// KernelBench files sort by problem number ("2_..." before "10_..."), then by name.
bool ByProblem(const std::string& a, const std::string& b) {
  const std::string na = fs::path(a).filename().string(), nb = fs::path(b).filename().string();
  const int pa = std::atoi(na.c_str()), pb = std::atoi(nb.c_str());
  return pa != pb ? pa < pb : na < nb;
}

}  // namespace

Result<std::string> ResolveSuite(const std::string& suite, const std::string& kernelbench_dir) {
  constexpr std::string_view kPrefix = "kernelbench:";
  if (suite.rfind(kPrefix, 0) != 0) {
    if (!fs::is_directory(suite)) {
      return NotFound("no suite folder " + suite);
    }
    return suite;
  }
  const std::string level = suite.substr(kPrefix.size());
  std::string root = kernelbench_dir;
  if (root.empty()) {
    const char* env = std::getenv("KERNELBENCH_DIR");
    root = env != nullptr ? env : "";
  }
  if (root.empty()) {
    const Result<std::string> data = DefaultSuiteDir(kKernelBenchSuite);
    if (!data.ok() || !fs::is_directory(*data)) {
      return InvalidArgument(fmt::format(
          "{} needs a KernelBench checkout: pass --kernelbench DIR, or set KERNELBENCH_DIR or "
          "{} ({})",
          suite, kDataDirVariable, data.ok() ? "no " + *data + " either" : "neither is set"));
    }
    root = *data;
  }
  for (const fs::path& dir : {fs::path(root) / level, fs::path(root) / "KernelBench" / level}) {
    if (fs::is_directory(dir)) {
      return dir.string();
    }
  }
  return NotFound(fmt::format("no {} folder in {} (nor in {}/KernelBench)", level, root, root));
}

Result<std::vector<std::string>> SuiteTaskFiles(const std::string& suite, const std::string& dir,
                                                const std::string& problems,
                                                std::optional<int> limit) {
  ASSIGN_OR_RETURN(std::vector<std::string> paths, ListPythonFiles(dir));
  std::sort(paths.begin(), paths.end(), ByProblem);
  if (!problems.empty()) {
    ASSIGN_OR_RETURN(std::vector<int> ids, ParseProblemIds(problems));
    std::vector<std::string> chosen;
    for (int id : ids) {
      auto it = std::find_if(paths.begin(), paths.end(), [&](const std::string& path) {
        return fs::path(path).filename().string().starts_with(std::to_string(id) + "_");
      });
      if (it == paths.end()) {
        return InvalidArgument(
            fmt::format("{} has no problem {} (no {}_*.py in {})", suite, id, id, dir));
      }
      chosen.push_back(*it);
    }
    paths = std::move(chosen);
  }
  if (limit && paths.size() > static_cast<size_t>(*limit)) {
    paths.resize(static_cast<size_t>(*limit));
  }
  if (paths.empty()) {
    return InvalidArgument("no task files in " + dir);
  }
  return paths;
}

double SuiteExpandRatio(const std::string& suite) {
  return suite == "kernelbench:level3" ? 0.5 : 1.0;  // c_e = c x 0.5 on Level 3 (docs/design.md).
}

}  // namespace adaexplore
