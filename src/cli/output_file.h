#pragma once

// An output file a command writes at its end (a result file, a report), checked before the work
// starts: an evaluation or a bench of an hour must not end in "cannot write".

#include <string>

#include "core/status.h"

namespace adaexplore {

// Ok when `path` is empty (not asked for) or names a file whose folder exists and is writable;
// otherwise an error naming `flag` and what is wrong.
Status CheckOutputFile(const char* flag, const std::string& path);

}  // namespace adaexplore
