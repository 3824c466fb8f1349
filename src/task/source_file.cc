#include "task/source_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "core/hash.h"
#include "core/json_text.h"
#include "sys/fs.h"

namespace adaexplore {
namespace {

constexpr size_t kMaxSourceBytes = 4 << 20;

}  // namespace

Result<SourceFile> ReadSourceFile(const std::string& path) {
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) {
    return text.status();
  }
  if (text->empty()) {
    return InvalidArgument(path + " is empty");
  }
  if (text->size() > kMaxSourceBytes) {
    return InvalidArgument(path + " is larger than 4 MiB; not a kernel source file");
  }
  if (text->find('\0') != std::string::npos) {
    return InvalidArgument(path + " contains NUL bytes; not a Python source file");
  }
  if (const std::optional<size_t> at = FirstInvalidUtf8(*text)) {
    const size_t line = static_cast<size_t>(std::count(text->begin(), text->begin() + *at, '\n'));
    return InvalidArgument(fmt::format(
        "{} is not UTF-8 (byte 0x{:02x} at offset {}, line {}); Python source must be UTF-8", path,
        static_cast<unsigned char>((*text)[*at]), *at, line + 1));
  }
  SourceFile file;
  file.path = path;
  file.name = std::filesystem::path(path).stem().string();
  file.sha256 = Sha256Hex(*text);
  file.source = std::move(*text);
  return file;
}

Result<std::vector<std::string>> ListPythonFiles(const std::string& dir) {
  return ListCandidateFiles(dir, false);
}

Result<std::vector<std::string>> ListCandidateFiles(const std::string& dir, bool with_json) {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) {
    return NotFound("cannot list " + dir + ": " + ec.message());
  }
  std::vector<std::string> files;
  for (const auto& entry : it) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file(ec) && (ext == ".py" || (with_json && ext == ".json")) &&
        entry.path().filename().string().rfind("__", 0) != 0) {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace adaexplore
