#include "eval/checks.h"

#include <gtest/gtest.h>

#include <set>

#include "eval/profile.h"

namespace adaexplore {
namespace {

TEST(ChecksTest, NamesAreUniqueAndEveryCheckSaysWhatAndWhy) {
  std::set<std::string_view> names;
  for (const IntegrityCheck& check : IntegrityChecks()) {
    EXPECT_TRUE(names.insert(check.name).second) << check.name;
    EXPECT_FALSE(check.catches.empty()) << check.name;
    EXPECT_FALSE(check.why.empty()) << check.name;
    // Source rules are switched by the profile's reject_static, not by a boolean.
    if (check.kind == CheckKind::kSourceRule) {
      EXPECT_EQ(check.enabled, nullptr) << check.name;
    }
    EXPECT_EQ(&GetIntegrityCheck(check.name), &check);
  }
  EXPECT_EQ(FindIntegrityCheck("no_such_check"), nullptr);
}

TEST(ChecksTest, StrictRunsEveryCheckAndPaperOnlyThoseAlwaysOn) {
  const EvalProfile strict = StrictProfile();
  const EvalProfile paper = PaperProfile();
  for (const IntegrityCheck& check : IntegrityChecks()) {
    EXPECT_TRUE(CheckApplies(check, strict)) << check.name;
    const bool always = check.kind == CheckKind::kRuntime && check.enabled == nullptr;
    EXPECT_EQ(CheckApplies(check, paper), always) << check.name;
  }
}

TEST(ChecksTest, AProfileSwitchTurnsItsCheckOff) {
  EvalProfile profile = StrictProfile();
  profile.check_stream_escape = false;
  EXPECT_FALSE(CheckApplies(GetIntegrityCheck("stream_escape"), profile));
  EXPECT_TRUE(CheckApplies(GetIntegrityCheck("kernel_trace"), profile));
  // A run that lets pure PyTorch rewrites count has no use for the trace.
  profile.pytorch_compute = PytorchCompute::kUnrestricted;
  EXPECT_FALSE(CheckApplies(GetIntegrityCheck("kernel_trace"), profile));
  profile.reject_static = {"try_except"};
  EXPECT_TRUE(CheckApplies(GetIntegrityCheck("try_except"), profile));
  EXPECT_FALSE(CheckApplies(GetIntegrityCheck("threads"), profile));
}

TEST(ChecksTest, SourceRuleNamesAreTheSourceRulesInOrder) {
  std::vector<std::string> rules;
  for (const IntegrityCheck& check : IntegrityChecks()) {
    if (check.kind == CheckKind::kSourceRule) {
      rules.emplace_back(check.name);
    }
  }
  EXPECT_EQ(IntegrityRuleNames(), rules);
  EXPECT_EQ(rules.front(), "model_inheritance");
}

}  // namespace
}  // namespace adaexplore
