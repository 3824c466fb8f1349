#include "task/task_file_name.h"

#include "core/hash.h"

namespace adaexplore {
namespace {

constexpr size_t kHashChars = 8;

bool Plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

}  // namespace

std::string TaskFileStem(std::string_view task) {
  std::string stem;
  bool changed = task.empty() || task.size() > kMaxStemBytes;
  for (char c : task.substr(0, kMaxStemBytes)) {
    const bool keep = Plain(c) && !(stem.empty() && c == '.');  // No "..", no hidden file.
    stem += keep ? c : '_';
    changed = changed || !keep;
  }
  if (!changed) {
    return stem;
  }
  return (stem.empty() ? "_" : stem) + "-" + Sha256Hex(task).substr(0, kHashChars);
}

}  // namespace adaexplore
