#pragma once

// How the prompts show a task (prompt/prompts.h's task_source): a KernelBench problem or a
// TritonBench-G operator file as it is; a FlashInfer-Trace definition as its description, axes,
// inputs, outputs and the entry point's signature in comments, then its reference code.

#include <string>

#include "task/source_file.h"

namespace adaexplore {

std::string PromptSource(const SourceFile& task);

}  // namespace adaexplore
