#pragma once

// Which model plays each role of the method (llm/chat.h's LlmRole): large steps (proposer), the
// small step's advice and edit (reviser, tuner), rule writing and its check (rule_writer, judge),
// task synthesis (synthesiser). A role not named uses the run's model (--llm, [llm] model), so
// one model for everything stays the default. Declared as a settings table (core/setting.h):
// the config file's [llm.roles], the flags (--proposer-model, ...) and docs/configuration.md are
// made from it; a run stores its RoleModels and a resume reads them back (search/run_spec.h).
//
//   RoleModels roles;
//   RETURN_IF_ERROR(ApplySettings(RoleModelSettingTable(), {{"tuner", "openai:gpt-5-mini"}},
//                                 roles, "[llm.roles]"));
//   roles.For(LlmRole::kTuner, "anthropic:claude-sonnet-4-5");  // "openai:gpt-5-mini"

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/setting.h"
#include "llm/chat.h"

namespace adaexplore {

struct RoleModels {
  // Role name ("tuner") -> "provider:model", for the roles given a model of their own.
  std::map<std::string, std::string> by_role;

  // `role`'s model: its own, else `fallback` (the run's model).
  std::string For(LlmRole role, const std::string& fallback) const;
  // Every model a run with `fallback` as its model may call, `fallback` first, each once.
  std::vector<std::string> All(const std::string& fallback) const;
  bool operator==(const RoleModels&) const = default;
};

// A row per role that can have a model of its own (every LlmRole but kOther).
const std::vector<Setting<RoleModels>>& RoleModelSettingTable();

}  // namespace adaexplore
