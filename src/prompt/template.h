#pragma once

// Prompt templates: plain text files a user can read and change, with two constructs only:
//
//   {{name}}               replaced by the value of `name`
//   {{#name}}...{{/name}}  kept when `name` is non-empty, dropped otherwise (no nesting of the
//                          same name)
//
// Anything else is literal, so Python and CUDA code with braces needs no escaping. Parsing checks
// every name against the set the caller will provide, so a typo in an edited template is an
// error when the template is loaded, not a silently empty hole in a prompt.

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace adaexplore {

class PromptTemplate {
 public:
  // Parses `text`; `origin` names it in errors. Every name used must be in `known`.
  static Result<PromptTemplate> Parse(std::string_view text, const std::string& origin,
                                      const std::set<std::string>& known);

  // The text with values filled in; names without a value render empty.
  std::string Render(const std::map<std::string, std::string>& values) const;

 private:
  struct Piece {
    enum class Kind { kText, kValue, kSection } kind = Kind::kText;
    std::string text;             // Literal text, or the name.
    std::vector<Piece> children;  // For a section.
  };
  static void RenderPieces(const std::vector<Piece>& pieces,
                           const std::map<std::string, std::string>& values, std::string& out);
  std::vector<Piece> pieces_;
};

}  // namespace adaexplore
