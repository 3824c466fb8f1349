#pragma once

// The rule writer's and the dedup judge's replies, and the checks a rule must pass.
//
// Writer reply: JSON {"rule": "You cannot ..."} or {"rule": "no guidance"}, possibly fenced or
// surrounded by prose; a bare "You cannot ..." sentence or "no guidance" is accepted too.
// Judge reply: JSON {"is_duplicate": bool, "matched_index": int, "confidence": number,
// "reason": "..."}; matched_index counts from 1 in the list the judge was shown.
//
// A rule is kept only if it is one sentence starting "You cannot", at most 300 characters, names
// no line or column number, and names none of the failing programs' own identifiers (a rule
// about `PADDING_LEFT` or "line 223" helps no other task: the reference's memory has both).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace adaexplore {

// nullopt for "no guidance"; an error when the reply is neither a rule nor "no guidance".
Result<std::optional<std::string>> ParseRuleReply(std::string_view reply);

struct JudgeVerdict {
  bool duplicate = false;
  int matched_index = 0;  // 1-based, into the candidates shown.
  double confidence = 0;
  std::string reason;
};
Result<JudgeVerdict> ParseJudgeReply(std::string_view reply, size_t candidates);

// Empty when `rule` may enter the memory; otherwise why not. `programs` are the failing
// kernels' sources, whose own names a rule must not mention.
std::string RuleProblem(std::string_view rule, const std::vector<std::string>& programs);

// The names a program defines itself: functions, classes, parameters, assigned variables and
// constants (not the library names it uses, like tl.load or torch.empty).
std::vector<std::string> DefinedNames(std::string_view program);

// Word-set similarity of two rules (Jaccard over lower-cased words, stop words dropped), 0..1.
double RuleSimilarity(std::string_view a, std::string_view b);

// Indices of the `limit` rules most similar to `rule`, those at or above `min_similarity`, most
// similar first: the judge is asked only about these, and not at all when there are none.
std::vector<size_t> SimilarRules(std::string_view rule, const std::vector<std::string>& rules,
                                 double min_similarity = 0.25, size_t limit = 8);

}  // namespace adaexplore
