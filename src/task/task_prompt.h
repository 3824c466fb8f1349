#pragma once

// How the prompts show a task (prompt/prompts.h's task_source): as its kind's row says
// (task/task_kind.h), else its source as it is.

#include <string>

#include "task/source_file.h"

namespace adaexplore {

std::string PromptSource(const SourceFile& task);

}  // namespace adaexplore
