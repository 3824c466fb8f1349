#include "cli/output_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>

namespace adaexplore {

Status CheckOutputFile(const char* flag, const std::string& path) {
  if (path.empty()) {
    return Status::Ok();
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    return InvalidArgument(fmt::format("{} {} is a folder: give a file to write", flag, path));
  }
  const fs::path parent =
      fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec)) {
    return InvalidArgument(
        fmt::format("{} {}: there is no folder {} to write it in", flag, path, parent.string()));
  }
  if (::access(parent.c_str(), W_OK) != 0) {
    return InvalidArgument(
        fmt::format("{} {}: the folder {} is not writable", flag, path, parent.string()));
  }
  return Status::Ok();
}

}  // namespace adaexplore
