#include "llm/role_models.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

TEST(RoleModelsTest, ARoleNotNamedUsesTheRunsModel) {
  RoleModels roles;
  ASSERT_TRUE(ApplySettings(RoleModelSettingTable(),
                            {{"tuner", "openai:gpt-5-mini"}, {"rule_writer", "openai:gpt-5"}},
                            roles, "[llm.roles]")
                  .ok());
  EXPECT_EQ(roles.For(LlmRole::kTuner, "anthropic:claude-sonnet-4-5"), "openai:gpt-5-mini");
  EXPECT_EQ(roles.For(LlmRole::kProposer, "anthropic:claude-sonnet-4-5"),
            "anthropic:claude-sonnet-4-5");
  EXPECT_EQ(roles.All("anthropic:claude-sonnet-4-5"),
            (std::vector<std::string>{"anthropic:claude-sonnet-4-5", "openai:gpt-5",
                                      "openai:gpt-5-mini"}));
  // The run's own model named for a role is listed once.
  roles.by_role["judge"] = "openai:gpt-5";
  EXPECT_EQ(roles.All("openai:gpt-5").size(), 2u);
}

TEST(RoleModelsTest, EveryRoleButOtherHasARowAndAFlag) {
  std::vector<std::string> names;
  for (const Setting<RoleModels>& row : RoleModelSettingTable()) {
    names.emplace_back(row.name);
    EXPECT_EQ(row.flag,
              "--" + std::string(row.name == "rule_writer" ? "rule-writer" : row.name) + "-model");
    EXPECT_TRUE(LlmRoleFromName(row.name).has_value()) << row.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"proposer", "reviser", "tuner", "rule_writer", "judge",
                                             "synthesiser"}));
}

TEST(RoleModelsTest, AModelThatIsNotProviderColonModelIsRefused) {
  RoleModels roles;
  Status bad =
      ApplySettings(RoleModelSettingTable(), {{"tuner", "gpt-5-mini"}}, roles, "[llm.roles]");
  EXPECT_FALSE(bad.ok());
  EXPECT_TRUE(roles.by_role.empty());  // All or none.
  Status unknown =
      ApplySettings(RoleModelSettingTable(), {{"tunr", "openai:gpt-5"}}, roles, "[llm.roles]");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.message().find("did you mean 'tuner'"), std::string::npos) << unknown.message();
}

}  // namespace
}  // namespace adaexplore
