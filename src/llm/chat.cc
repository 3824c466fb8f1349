#include "llm/chat.h"

#include <array>
#include <utility>

#include "core/enum_names.h"

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

std::string_view LlmRoleName(LlmRole role) { return NameIn(kRoleNames, role, "other"); }

std::optional<LlmRole> LlmRoleFromName(std::string_view name) { return ValueIn(kRoleNames, name); }

}  // namespace adaexplore
