#include "task/task_kind.h"

#include <string>

namespace adaexplore {

TaskKind DetectTaskKind(std::string_view path, std::string_view source) {
  if (path.ends_with(".json")) {
    return TaskKind::kFlashInfer;
  }
  const std::string separator(kTritonBenchSeparatorWidth, '#');
  size_t at = 0;
  while ((at = source.find(separator, at)) != std::string_view::npos) {
    const bool line_start = at == 0 || source[at - 1] == '\n';
    const size_t end = at + separator.size();
    const bool line_end = end == source.size() || source[end] == '\n' || source[end] == '\r';
    if (line_start && line_end) {
      return TaskKind::kTritonBench;
    }
    at = end;
  }
  // No separator, but a test function and no Model: an operator file whose separator is
  // missing, which the worker reports as such (rather than running it as a KernelBench task).
  const bool has_test =
      source.starts_with("def test_") || source.find("\ndef test_") != std::string_view::npos;
  const bool has_model = source.find("class Model") != std::string_view::npos;
  return has_test && !has_model ? TaskKind::kTritonBench : TaskKind::kKernelBench;
}

}  // namespace adaexplore
