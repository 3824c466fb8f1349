#include "edits/code_block.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "core/text.h"

namespace adaexplore {
namespace {

// A fence line: up to three spaces, then three or more ` or ~. Sets the fence char and length.
bool IsFence(std::string_view line, char& fence_char, size_t& fence_length,
             std::string_view& info) {
  size_t indent = 0;
  while (indent < line.size() && indent < 4 && line[indent] == ' ') {
    ++indent;
  }
  if (indent > 3 || indent >= line.size() || (line[indent] != '`' && line[indent] != '~')) {
    return false;
  }
  const char c = line[indent];
  size_t end = indent;
  while (end < line.size() && line[end] == c) {
    ++end;
  }
  if (end - indent < 3) {
    return false;
  }
  fence_char = c;
  fence_length = end - indent;
  info = Trim(line.substr(end));
  return true;
}

bool IsPythonTag(std::string_view language) {
  return language == "python" || language == "py" || language == "python3";
}

bool LooksLikePythonModule(std::string_view code) {
  const bool imports = code.find("import ") != std::string_view::npos;
  return imports && code.find("class ModelNew") != std::string_view::npos;
}

}  // namespace

std::string StripReasoning(std::string_view reply) {
  std::string text(reply);
  for (auto [open, close] : {std::pair<std::string_view, std::string_view>{"<think>", "</think>"},
                             {"<thinking>", "</thinking>"}}) {
    size_t start = 0;
    while ((start = text.find(open, start)) != std::string::npos) {
      size_t end = text.find(close, start);
      if (end == std::string::npos) {
        break;  // An unclosed section: leave the text alone rather than drop the rest.
      }
      text.erase(start, end + close.size() - start);
    }
  }
  return text;
}

std::vector<CodeBlock> FindCodeBlocks(std::string_view reply) {
  std::vector<CodeBlock> blocks;
  std::istringstream in{std::string(reply)};
  std::string line;
  size_t number = 0;
  bool inside = false;
  char fence_char = 0;
  size_t fence_length = 0;
  CodeBlock current;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') {
      line.pop_back();
    }
    char c = 0;
    size_t length = 0;
    std::string_view info;
    if (!inside) {
      if (IsFence(line, c, length, info)) {
        inside = true;
        fence_char = c;
        fence_length = length;
        std::string_view tag = info.substr(0, info.find_first_of(" \t{"));
        current = CodeBlock{.language = Lower(tag), .line = number};
      }
      continue;
    }
    if (IsFence(line, c, length, info) && c == fence_char && length >= fence_length &&
        info.empty()) {
      blocks.push_back(std::move(current));
      current = CodeBlock{};
      inside = false;
      continue;
    }
    current.code += line;
    current.code += '\n';
  }
  if (inside) {
    current.closed = false;
    blocks.push_back(std::move(current));
  }
  return blocks;
}

Result<std::string> ExtractKernel(std::string_view reply) {
  const std::string text = StripReasoning(reply);
  const std::vector<CodeBlock> blocks = FindCodeBlocks(text);
  const CodeBlock* chosen = nullptr;
  for (const CodeBlock& block : blocks) {
    if (IsPythonTag(block.language)) {
      chosen = &block;
      break;
    }
  }
  if (chosen == nullptr) {
    for (const CodeBlock& block : blocks) {
      if (block.language.empty() && LooksLikePythonModule(block.code)) {
        chosen = &block;
        break;
      }
    }
  }
  if (chosen != nullptr) {
    if (!chosen->closed) {
      return ParseError(
          "the reply's python code block (line " + std::to_string(chosen->line) +
          ") is never closed: the reply was cut off, most likely at the output token limit");
    }
    if (Trim(chosen->code).empty()) {
      return ParseError("the reply's python code block is empty");
    }
    return chosen->code;
  }
  if (blocks.empty() && LooksLikePythonModule(text)) {
    return std::string(Trim(text)) + "\n";  // A bare module without fences.
  }
  if (blocks.empty()) {
    return ParseError("the reply has no fenced ```python code block");
  }
  return ParseError("the reply has " + std::to_string(blocks.size()) +
                    " code block(s) but none is tagged python or holds a module with "
                    "class ModelNew");
}

}  // namespace adaexplore
