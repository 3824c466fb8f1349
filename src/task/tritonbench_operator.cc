#include "task/tritonbench_operator.h"

#include <string>

namespace adaexplore {

// A Python file with a separator line, or with a top-level test_* function and no class Model:
// an operator whose separator is missing, which the worker reports as such (rather than running
// it as a KernelBench task).
bool IsTritonBenchOperator(std::string_view path, std::string_view source) {
  (void)path;
  const std::string separator(kTritonBenchSeparatorWidth, '#');
  size_t at = 0;
  while ((at = source.find(separator, at)) != std::string_view::npos) {
    const bool line_start = at == 0 || source[at - 1] == '\n';
    const size_t end = at + separator.size();
    const bool line_end = end == source.size() || source[end] == '\n' || source[end] == '\r';
    if (line_start && line_end) {
      return true;
    }
    at = end;
  }
  const bool has_test =
      source.starts_with("def test_") || source.find("\ndef test_") != std::string_view::npos;
  const bool has_model = source.find("class Model") != std::string_view::npos;
  return has_test && !has_model;
}

}  // namespace adaexplore
