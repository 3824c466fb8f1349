#include "prompt/template.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace adaexplore {
namespace {

int LineOf(std::string_view text, size_t offset) {
  return 1 +
         static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n'));
}

}  // namespace

Result<PromptTemplate> PromptTemplate::Parse(std::string_view text, const std::string& origin,
                                             const std::set<std::string>& known) {
  // A stack of open sections; the bottom is the template itself.
  std::vector<std::vector<Piece>> stack(1);
  std::vector<std::pair<std::string, size_t>> open;  // Name and offset of each open section.
  size_t at = 0;
  while (at < text.size()) {
    const size_t start = text.find("{{", at);
    if (start == std::string_view::npos) {
      stack.back().push_back({.kind = Piece::Kind::kText, .text = std::string(text.substr(at))});
      break;
    }
    if (start > at) {
      stack.back().push_back(
          {.kind = Piece::Kind::kText, .text = std::string(text.substr(at, start - at))});
    }
    const size_t end = text.find("}}", start + 2);
    if (end == std::string_view::npos) {
      return ParseError(fmt::format("{}:{}: '{{{{' is never closed", origin, LineOf(text, start)));
    }
    std::string tag(text.substr(start + 2, end - start - 2));
    const char sigil = tag.empty() ? '\0' : tag[0];
    const std::string name = sigil == '#' || sigil == '/' ? tag.substr(1) : tag;
    if (!known.contains(name)) {
      return ParseError(fmt::format("{}:{}: unknown placeholder '{}' (known: {})", origin,
                                    LineOf(text, start), name, fmt::join(known, ", ")));
    }
    if (sigil == '#') {
      open.emplace_back(name, start);
      stack.emplace_back();
    } else if (sigil == '/') {
      if (open.empty() || open.back().first != name) {
        return ParseError(fmt::format("{}:{}: '{{{{/{}}}}}' closes no open section", origin,
                                      LineOf(text, start), name));
      }
      Piece section{
          .kind = Piece::Kind::kSection, .text = name, .children = std::move(stack.back())};
      stack.pop_back();
      open.pop_back();
      stack.back().push_back(std::move(section));
    } else {
      stack.back().push_back({.kind = Piece::Kind::kValue, .text = name});
    }
    at = end + 2;
  }
  if (!open.empty()) {
    return ParseError(fmt::format("{}:{}: section '{}' is never closed", origin,
                                  LineOf(text, open.back().second), open.back().first));
  }
  PromptTemplate result;
  result.pieces_ = std::move(stack.front());
  return result;
}

void PromptTemplate::RenderPieces(const std::vector<Piece>& pieces,
                                  const std::map<std::string, std::string>& values,
                                  std::string& out) {
  for (const Piece& piece : pieces) {
    if (piece.kind == Piece::Kind::kText) {
      out += piece.text;
      continue;
    }
    auto it = values.find(piece.text);
    const bool present = it != values.end() && !it->second.empty();
    if (piece.kind == Piece::Kind::kValue) {
      if (present) {
        out += it->second;
      }
    } else if (present) {
      RenderPieces(piece.children, values, out);
    }
  }
}

std::string PromptTemplate::Render(const std::map<std::string, std::string>& values) const {
  std::string out;
  RenderPieces(pieces_, values, out);
  return out;
}

}  // namespace adaexplore
