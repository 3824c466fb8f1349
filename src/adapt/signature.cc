#include "adapt/signature.h"

#include <algorithm>
#include <map>
#include <regex>

#include "core/text.h"

namespace adaexplore {
namespace {

constexpr size_t kMaxSignatureChars = 240;

// "NameError: ...", "triton.compiler.errors.CompilationError: ...", "RuntimeError: ...".
bool IsExceptionLine(std::string_view line) {
  static const std::regex kException(R"(^[A-Za-z_][\w.]*(Error|Exception|Warning|Exit)\b:?.*)");
  return std::regex_match(line.begin(), line.end(), kException);
}

// A quoted word that reads as vocabulary ('dtype', 'tuple', 'constexpr') says what went wrong
// and stays; one that reads as a program's own name ('PADDING_LEFT', 'x_ptr', 'BLOCK_M') says
// where, and becomes <name>.
bool IsVocabulary(std::string_view word) {
  if (word.empty() || word.size() > 12) {
    return false;
  }
  return std::all_of(word.begin(), word.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

std::string ReplaceQuotedNames(std::string_view text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const char quote = text[i];
    if (quote == '\'' || quote == '"' || quote == '`') {
      size_t end = i + 1;
      while (end < text.size() && end - i <= 81 && text[end] != quote && text[end] != ' ' &&
             text[end] != '\n') {
        ++end;
      }
      if (end < text.size() && text[end] == quote && end > i + 1) {
        std::string_view word = text.substr(i + 1, end - i - 1);
        out += quote;
        out += IsVocabulary(word) ? std::string(word) : "<name>";
        out += quote;
        i = end + 1;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

}  // namespace

std::string NormaliseErrorText(std::string_view text) {
  // Order matters: paths before numbers, quoted names before bare numbers.
  static const std::vector<std::pair<std::regex, std::string>> kRules = [] {
    std::vector<std::pair<std::regex, std::string>> rules;
    auto add = [&](const char* pattern, const char* with) {
      rules.emplace_back(std::regex(pattern, std::regex::optimize), with);
    };
    add(R"(0x[0-9a-fA-F]+)", "<addr>");
    add(R"((/[\w.@+-]+)+/?)", "<path>");
    add(R"(\b[Ll]ine \d+)", "line <n>");
    add(R"(\b[Cc]olumn \d+)", "column <n>");
    add(R"(<path>:\d+(:\d+)?)", "<path>");
    add(R"(\bbuiltins\.)", "");
    add(R"(\b([\w.]+): \1:)", "$1:");  // "ValueError: ValueError: ..." (the reference's logs).
    add(R"(\b\d+(\.\d+)?([eE][-+]?\d+)?\b)", "<n>");
    add(R"(\s+)", " ");
    return rules;
  }();
  std::string out = ReplaceQuotedNames(text);
  for (const auto& [pattern, with] : kRules) {
    out = std::regex_replace(out, pattern, with);
  }
  return std::string(Trim(out));
}

std::string ErrorSignature(std::string_view error) {
  std::string_view decisive;
  for (std::string_view line : SplitLines(error)) {
    line = Trim(line);
    if (line.empty()) {
      continue;
    }
    if (IsExceptionLine(line) || decisive.empty() || !IsExceptionLine(decisive)) {
      decisive = line;
    }
  }
  std::string signature = NormaliseErrorText(decisive);
  if (signature.size() > kMaxSignatureChars) {
    signature.resize(kMaxSignatureChars);
  }
  return signature;
}

std::vector<SignatureGroup> GroupBySignature(const std::vector<std::string>& signatures) {
  std::vector<SignatureGroup> groups;
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < signatures.size(); ++i) {
    auto [it, added] = index.emplace(signatures[i], groups.size());
    if (added) {
      groups.push_back({.signature = signatures[i], .members = {}});
    }
    groups[it->second].members.push_back(i);
  }
  return groups;
}

}  // namespace adaexplore
