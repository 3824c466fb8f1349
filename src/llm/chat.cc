#include "llm/chat.h"

#include <array>
#include <utility>

namespace adaexplore {
namespace {
constexpr std::array<std::pair<LlmRole, std::string_view>, 7> kRoleNames = {{
    {LlmRole::kProposer, "proposer"},
    {LlmRole::kReviser, "reviser"},
    {LlmRole::kTuner, "tuner"},
    {LlmRole::kRuleWriter, "rule_writer"},
    {LlmRole::kJudge, "judge"},
    {LlmRole::kSynthesiser, "synthesiser"},
    {LlmRole::kOther, "other"},
}};
}  // namespace

std::string_view LlmRoleName(LlmRole role) {
  for (const auto& [value, name] : kRoleNames) {
    if (value == role) {
      return name;
    }
  }
  return "other";
}

std::optional<LlmRole> LlmRoleFromName(std::string_view name) {
  for (const auto& [value, role_name] : kRoleNames) {
    if (role_name == name) {
      return value;
    }
  }
  return std::nullopt;
}

}  // namespace adaexplore
