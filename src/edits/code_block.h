#pragma once

// Finding the kernel in an LLM reply. The reply is prose with fenced blocks; the kernel is the
// first ```python block (the reference release's rule). Models do not always follow the format,
// so, in order: a block tagged python/py/python3; else an untagged block that reads as a Python
// module (imports, a class ModelNew); else a reply that is nothing but such a module. Reasoning
// sections (<think>...</think>) are ignored. A block left open at the end of the reply means the
// reply was cut off; that is reported as such, not parsed as a truncated kernel.

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace adaexplore {

struct CodeBlock {
  std::string language;  // The fence's tag, lower-cased; empty when untagged.
  std::string code;      // Between the fences, without them.
  size_t line = 0;       // 1-based line of the opening fence in the reply.
  bool closed = true;    // False when the reply ends inside the block.
};

// Every fenced block (``` or ~~~, three or more) in `reply`, in order.
std::vector<CodeBlock> FindCodeBlocks(std::string_view reply);

// The kernel source in `reply` by the rules above; a ParseError saying what was wrong otherwise
// (the text goes back to the model in the next prompt).
Result<std::string> ExtractKernel(std::string_view reply);

// `reply` without <think>...</think> / <thinking>...</thinking> sections.
std::string StripReasoning(std::string_view reply);

}  // namespace adaexplore
