#include "adapt/rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "core/text.h"
#include "edits/code_block.h"

namespace adaexplore {
namespace {

constexpr size_t kMaxRuleChars = 300;

// Without surrounding space, quotes and emphasis, which models wrap rules in.
std::string Trimmed(std::string_view s) { return std::string(Trim(s, " \t\r\n\"'`*")); }

// The first JSON object in `text` that parses: a fenced block, else the span from the first '{'
// to the last '}'.
std::optional<nlohmann::json> FirstJsonObject(std::string_view text) {
  std::vector<std::string> candidates;
  for (const CodeBlock& block : FindCodeBlocks(text)) {
    candidates.push_back(block.code);
  }
  const size_t open = text.find('{');
  const size_t close = text.rfind('}');
  if (open != std::string_view::npos && close != std::string_view::npos && close > open) {
    candidates.emplace_back(text.substr(open, close - open + 1));
  }
  for (const std::string& candidate : candidates) {
    nlohmann::json value = nlohmann::json::parse(candidate, nullptr, false);
    if (!value.is_discarded() && value.is_object()) {
      return value;
    }
  }
  return std::nullopt;
}

bool IsNoGuidance(std::string_view text) {
  const std::string lower = Lower(Trimmed(text));
  return lower.rfind("no guidance", 0) == 0;
}

const std::set<std::string>& StopWords() {
  static const std::set<std::string> kWords = {
      "you",  "cannot", "a",    "an",   "the",    "of",   "to",   "in",  "on",
      "or",   "and",    "as",   "with", "for",    "is",   "be",   "by",  "it",
      "its",  "that",   "this", "when", "inside", "into", "from", "use", "call",
      "pass", "are",    "not",  "any",  "which",  "must", "will"};
  return kWords;
}

std::set<std::string> Words(std::string_view text) {
  std::set<std::string> words;
  std::string word;
  auto flush = [&] {
    while (!word.empty() && word.back() == '.') {
      word.pop_back();  // Sentence ends.
    }
    if (!word.empty() && !StopWords().count(word)) {
      words.insert(word);
    }
    word.clear();
  };
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.') {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      flush();
    }
  }
  flush();
  return words;
}

// Names every kernel uses, which a rule may mention even when a program also defines them.
const std::set<std::string>& GenericNames() {
  static const std::set<std::string> kNames = {
      "self",       "x",       "y",         "out",        "output", "input",      "weight",
      "bias",       "forward", "ModelNew",  "Model",      "BLOCK",  "BLOCK_SIZE", "BLOCK_M",
      "BLOCK_N",    "BLOCK_K", "num_warps", "num_stages", "pid",    "offsets",    "mask",
      "n_elements", "grid",    "kernel",    "meta",       "dtype",  "device",     "stride",
      "shape",      "i",       "j",         "k",          "n",      "m"};
  return kNames;
}

}  // namespace

Result<std::optional<std::string>> ParseRuleReply(std::string_view reply) {
  const std::string text = StripReasoning(reply);
  std::string rule;
  if (std::optional<nlohmann::json> object = FirstJsonObject(text)) {
    auto it = object->find("rule");
    if (it == object->end() || !it->is_string()) {
      return ParseError("the rule writer's JSON has no string field \"rule\"");
    }
    rule = Trimmed(it->get<std::string>());
  } else {
    // No JSON: a bare sentence. Take the first line that starts like a rule.
    for (std::string_view raw : SplitLines(text)) {
      const std::string line = Trimmed(raw);
      if (IsNoGuidance(line) || Lower(line).rfind("you cannot", 0) == 0) {
        rule = line;
        break;
      }
    }
    if (rule.empty()) {
      return ParseError(
          "the rule writer's reply holds neither JSON, a 'You cannot' sentence nor "
          "'no guidance'");
    }
  }
  if (IsNoGuidance(rule)) {
    return std::optional<std::string>();
  }
  return std::optional<std::string>(rule);
}

Result<JudgeVerdict> ParseJudgeReply(std::string_view reply, size_t candidates) {
  std::optional<nlohmann::json> object = FirstJsonObject(StripReasoning(reply));
  if (!object) {
    return ParseError("the judge's reply holds no JSON object");
  }
  JudgeVerdict verdict;
  const nlohmann::json& j = *object;
  if (auto it = j.find("is_duplicate"); it != j.end()) {
    if (it->is_boolean()) {
      verdict.duplicate = it->get<bool>();
    } else if (it->is_string()) {
      verdict.duplicate = Lower(it->get<std::string>()) == "true";
    } else {
      return ParseError("the judge's \"is_duplicate\" is neither true nor false");
    }
  } else {
    return ParseError("the judge's JSON has no \"is_duplicate\"");
  }
  if (auto it = j.find("matched_index"); it != j.end() && it->is_number_integer()) {
    verdict.matched_index = it->get<int>();
  } else if (it != j.end() && it->is_string()) {
    verdict.matched_index = std::atoi(it->get<std::string>().c_str());
  }
  if (auto it = j.find("confidence"); it != j.end() && it->is_number()) {
    verdict.confidence = it->get<double>();
  }
  if (auto it = j.find("reason"); it != j.end() && it->is_string()) {
    verdict.reason = it->get<std::string>();
  }
  if (verdict.duplicate &&
      (verdict.matched_index < 1 || static_cast<size_t>(verdict.matched_index) > candidates)) {
    return ParseError(fmt::format("the judge matched rule {}, but it was shown {} rules",
                                  verdict.matched_index, candidates));
  }
  return verdict;
}

std::vector<std::string> DefinedNames(std::string_view program) {
  static const std::regex kDefinition(
      R"((?:^|\n)[ \t]*(?:def|class)[ \t]+([A-Za-z_]\w*))"        // def name / class name
      R"(|(?:^|\n)[ \t]*([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=[^=])"  // name = ... / name: T = ...
      R"(|[(,][ \t]*([A-Za-z_]\w*)[ \t]*(?::[ \t]*tl\.constexpr)?[ \t]*(?=[,)=]))");  // params
  std::set<std::string> names;
  const std::string text(program);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kDefinition);
       it != std::sregex_iterator(); ++it) {
    for (size_t group = 1; group < it->size(); ++group) {
      if ((*it)[group].matched) {
        names.insert((*it)[group].str());
      }
    }
  }
  return {names.begin(), names.end()};
}

std::string RuleProblem(std::string_view rule, const std::vector<std::string>& programs) {
  if (Lower(rule).rfind("you cannot", 0) != 0) {
    return "it does not start with \"You cannot\"";
  }
  if (rule.size() > kMaxRuleChars) {
    return fmt::format("it is longer than {} characters", kMaxRuleChars);
  }
  static const std::regex kLineNumber(R"(\b(line|lines|column|col)\s*\d+)", std::regex::icase);
  const std::string text(rule);
  if (std::regex_search(text, kLineNumber)) {
    return "it names a line or column number";
  }
  std::set<std::string> rule_words;
  static const std::regex kIdentifier(R"([A-Za-z_]\w*)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kIdentifier);
       it != std::sregex_iterator(); ++it) {
    rule_words.insert(it->str());
  }
  for (const std::string& program : programs) {
    for (const std::string& name : DefinedNames(program)) {
      // Plain English words ("result", "value") are not evidence; a program's own identifiers
      // are: with an underscore, a digit or an upper-case letter after the first.
      const bool code_like =
          name.size() >= 3 && std::any_of(name.begin() + 1, name.end(), [](char c) {
            return c == '_' || std::isdigit(static_cast<unsigned char>(c)) ||
                   std::isupper(static_cast<unsigned char>(c));
          });
      if (code_like && rule_words.count(name) && !GenericNames().count(name)) {
        return fmt::format("it names `{}`, an identifier of the failing program", name);
      }
    }
  }
  return "";
}

double RuleSimilarity(std::string_view a, std::string_view b) {
  const std::set<std::string> wa = Words(a), wb = Words(b);
  if (wa.empty() && wb.empty()) {
    return 1;
  }
  size_t common = 0;
  for (const std::string& w : wa) {
    common += wb.count(w);
  }
  return static_cast<double>(common) / static_cast<double>(wa.size() + wb.size() - common);
}

std::vector<size_t> SimilarRules(std::string_view rule, const std::vector<std::string>& rules,
                                 double min_similarity, size_t limit) {
  std::vector<std::pair<double, size_t>> scored;
  for (size_t i = 0; i < rules.size(); ++i) {
    const double similarity = RuleSimilarity(rule, rules[i]);
    if (similarity >= min_similarity) {
      scored.emplace_back(similarity, i);
    }
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first > y.first; });
  std::vector<size_t> out;
  for (size_t i = 0; i < scored.size() && i < limit; ++i) {
    out.push_back(scored[i].second);
  }
  return out;
}

}  // namespace adaexplore
