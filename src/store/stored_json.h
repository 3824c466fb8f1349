#pragma once

// Reading JSON back from the run database, where any value may be bad: written by another
// build, edited by hand, truncated by a full disk. A bad value must become an error that names
// where it lives ("run database: nodes row (run 1, task 'relu', node 3): column 'result' is not
// valid JSON: ..."), so the user can find and fix or delete the row; it must never end the
// process (nlohmann throws on a parse error and on a value of the wrong type).
//
// RunDb checks each JSON column as it reads it: that it parses and has the kind of value the
// column holds (an object, an array). Deeper fields are read by their users (the search's
// resume, the reports, the export); they run those reads inside ReadStoredJson, which turns the
// exceptions into the same error. Row names come from the functions below, so every message
// names a row the same way.

#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/status.h"

namespace adaexplore {

// "runs row (run 3)".
std::string RunsRow(int64_t run);
// "task_files row (run 3, task 'relu')": a task's kind, path and workloads.
std::string TaskFilesRow(int64_t run, std::string_view task);
// "nodes row (run 3, task 'relu', node 7)".
std::string NodesRow(int64_t run, std::string_view task, int64_t node);
// "llm_calls row (run 3, task 'relu', node 7, call 1)".
std::string CallsRow(int64_t run, std::string_view task, int64_t node, int64_t seq);

// "run database: <row>: column '<column>': <what>", a ParseError.
Status StoredJsonError(std::string_view row, std::string_view column, std::string_view what);

// Runs `read` (returning Status), turning the exceptions that reading JSON of the wrong shape
// throws into StoredJsonError(row, column, ...): nlohmann's, and std::invalid_argument, which
// an enum's unknown name throws (core/enum_json.h).
template <typename Read>
Status ReadStoredJson(std::string_view row, std::string_view column, Read read) {
  try {
    return read();
  } catch (const nlohmann::json::exception& e) {
    return StoredJsonError(row, column, e.what());
  } catch (const std::invalid_argument& e) {
    return StoredJsonError(row, column, e.what());
  }
}

}  // namespace adaexplore
