#include "store/stored_json.h"

#include <fmt/format.h>

namespace adaexplore {

std::string RunsRow(int64_t run) { return fmt::format("runs row (run {})", run); }

std::string TaskFilesRow(int64_t run, std::string_view task) {
  return fmt::format("task_files row (run {}, task '{}')", run, task);
}

std::string NodesRow(int64_t run, std::string_view task, int64_t node) {
  return fmt::format("nodes row (run {}, task '{}', node {})", run, task, node);
}

std::string CallsRow(int64_t run, std::string_view task, int64_t node, int64_t seq) {
  return fmt::format("llm_calls row (run {}, task '{}', node {}, call {})", run, task, node, seq);
}

Status StoredJsonError(std::string_view row, std::string_view column, std::string_view what) {
  return ParseError(fmt::format("run database: {}: column '{}': {}", row, column, what));
}

}  // namespace adaexplore
