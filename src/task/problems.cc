#include "task/problems.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "sys/fs.h"

namespace adaexplore {
namespace {

Result<int> ParseId(std::string_view text, std::string_view whole) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value <= 0) {
    return InvalidArgument(fmt::format(
        "--problem '{}': '{}' is not a problem number (1-based: 7, 1-10 or 1,4,9)", whole, text));
  }
  return value;
}

// Where each id's file is: KernelBench's level<N>/<id>_<Name>.py.
Result<std::map<int, std::string>> KernelBenchFiles(const std::string& dir, int level) {
  if (level < 1 || level > 4) {
    return InvalidArgument(
        fmt::format("--level {}: KernelBench's levels are 1, 2, 3 and 4", level));
  }
  const std::filesystem::path folder = std::filesystem::path(dir) / fmt::format("level{}", level);
  std::error_code ec;
  std::map<int, std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    const size_t underscore = name.find('_');
    int id = 0;
    if (underscore == std::string::npos || !name.ends_with(".py")) {
      continue;
    }
    const auto [end, parse] = std::from_chars(name.data(), name.data() + underscore, id);
    if (parse == std::errc() && end == name.data() + underscore && id > 0) {
      files[id] = entry.path().string();
    }
  }
  if (ec) {
    return NotFound(
        fmt::format("{}: {} (the KernelBench folder: --suite-dir)", folder.string(), ec.message()));
  }
  if (files.empty()) {
    return NotFound(folder.string() + " holds no KernelBench problems (<id>_<Name>.py)");
  }
  return files;
}

// Where each id's file is: TritonBench_G_v1.index.json's adaexplore_problem_id and file.
Result<std::map<int, std::string>> TritonBenchFiles(const std::string& dir) {
  const std::string index_path = dir + "/TritonBench_G_v1.index.json";
  ASSIGN_OR_RETURN(std::string text, ReadFile(index_path));
  const nlohmann::json index = nlohmann::json::parse(text, nullptr, false);
  if (!index.is_array()) {
    return InvalidArgument(index_path + " is not a JSON array");
  }
  std::map<int, std::string> files;
  for (const nlohmann::json& entry : index) {
    if (entry.is_object() && entry.contains("adaexplore_problem_id") &&
        entry["adaexplore_problem_id"].is_number_integer() && entry.contains("file") &&
        entry["file"].is_string()) {
      files[entry["adaexplore_problem_id"].get<int>()] =
          dir + "/tasks/" + entry["file"].get<std::string>();
    }
  }
  if (files.empty()) {
    return InvalidArgument(index_path + " numbers no problems");
  }
  return files;
}

}  // namespace

Result<std::vector<int>> ParseProblemIds(std::string_view text) {
  std::vector<int> ids;
  std::set<int> seen;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view part = text.substr(start, comma - start);
    const size_t dash = part.find('-');
    int first = 0;
    int last = 0;
    if (dash == std::string_view::npos) {
      ASSIGN_OR_RETURN(first, ParseId(part, text));
      last = first;
    } else {
      ASSIGN_OR_RETURN(first, ParseId(part.substr(0, dash), text));
      ASSIGN_OR_RETURN(last, ParseId(part.substr(dash + 1), text));
      if (last < first) {
        return InvalidArgument(
            fmt::format("--problem '{}': the range '{}' runs backwards", text, part));
      }
    }
    for (int id = first; id <= last; ++id) {
      if (seen.insert(id).second) {
        ids.push_back(id);
      }
    }
    start = comma + 1;
  }
  return ids;
}

Result<std::string> DefaultSuiteDir(std::string_view suite) {
  const char* data = std::getenv(kDataDirVariable.data());
  if (data == nullptr || *data == '\0') {
    return InvalidArgument(fmt::format(
        "where is {}? Set {} to the folder holding the suites ({}/{} is then used), or pass "
        "its folder (--suite-dir)",
        suite, kDataDirVariable, kDataDirVariable, suite));
  }
  return (std::filesystem::path(data) / std::string(suite)).string();
}

Result<std::vector<std::string>> ProblemFiles(std::string_view suite, const std::string& dir,
                                              const std::vector<int>& ids, int level) {
  std::map<int, std::string> files;
  std::string where;
  if (suite == kKernelBenchSuite) {
    ASSIGN_OR_RETURN(files, KernelBenchFiles(dir, level));
    where = fmt::format("KernelBench level {}", level);
  } else if (suite == kTritonBenchSuite) {
    if (level != 0) {
      return InvalidArgument(fmt::format("--level: {} has no levels", suite));
    }
    ASSIGN_OR_RETURN(files, TritonBenchFiles(dir));
    where = std::string(suite);
  } else {
    return InvalidArgument(fmt::format("--suite must be {} or {}, not '{}'", kKernelBenchSuite,
                                       kTritonBenchSuite, suite));
  }
  std::vector<std::string> paths;
  for (int id : ids) {
    auto it = files.find(id);
    if (it == files.end()) {
      return InvalidArgument(fmt::format("{} has no problem {}: its problems are {} to {}", where,
                                         id, files.begin()->first, files.rbegin()->first));
    }
    paths.push_back(it->second);
  }
  return paths;
}

}  // namespace adaexplore
