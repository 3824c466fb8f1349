#include "llm/role_models.h"

#include <algorithm>
#include <array>

#include "llm/provider.h"

namespace adaexplore {
namespace {

// The roles a user can give a model, with their flags and what they do.
struct RoleRow {
  LlmRole role;
  std::string_view flag;
  std::string_view help;
};

constexpr std::array<RoleRow, 6> kRoleRows = {{
    {LlmRole::kProposer, "--proposer-model", "the model of large steps (new kernels)"},
    {LlmRole::kReviser, "--reviser-model", "the model advising a small step"},
    {LlmRole::kTuner, "--tuner-model", "the model editing a kernel in a small step"},
    {LlmRole::kRuleWriter, "--rule-writer-model", "adapt: the model writing memory rules"},
    {LlmRole::kJudge, "--judge-model", "adapt: the model checking a rule against its failure"},
    {LlmRole::kSynthesiser, "--synthesiser-model", "adapt: the model writing new tasks"},
}};

std::vector<Setting<RoleModels>> MakeTable() {
  std::vector<Setting<RoleModels>> table;
  for (const RoleRow& row : kRoleRows) {
    const std::string name(LlmRoleName(row.role));
    Setting<RoleModels> setting{.name = LlmRoleName(row.role),
                                .kind = SettingKind::kText,
                                .flag = row.flag,
                                .default_text = "the run's model (--llm)",
                                .help = row.help};
    setting.get = [name](const RoleModels& r) {
      auto it = r.by_role.find(name);
      return it == r.by_role.end() ? nlohmann::json() : nlohmann::json(it->second);
    };
    setting.set = [name](RoleModels& r, const nlohmann::json& v) -> Status {
      const std::string model = v.get<std::string>();
      RETURN_IF_ERROR(ParseModelSpec(model).status());
      r.by_role[name] = model;
      return Status::Ok();
    };
    table.push_back(std::move(setting));
  }
  return table;
}

}  // namespace

std::string RoleModels::For(LlmRole role, const std::string& fallback) const {
  auto it = by_role.find(std::string(LlmRoleName(role)));
  return it == by_role.end() ? fallback : it->second;
}

std::vector<std::string> RoleModels::All(const std::string& fallback) const {
  std::vector<std::string> models = {fallback};
  for (const auto& [role, model] : by_role) {
    if (std::find(models.begin(), models.end(), model) == models.end()) {
      models.push_back(model);
    }
  }
  return models;
}

const std::vector<Setting<RoleModels>>& RoleModelSettingTable() {
  static const std::vector<Setting<RoleModels>> table = MakeTable();
  return table;
}

}  // namespace adaexplore
