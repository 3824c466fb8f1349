#include "task/task_prompt.h"

namespace adaexplore {

std::string PromptSource(const SourceFile& task) {
  const auto prompt_source = KindInfo(task.kind).prompt_source;
  return prompt_source != nullptr ? prompt_source(task) : task.source;
}

}  // namespace adaexplore
