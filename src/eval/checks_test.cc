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

TEST(ChecksTest, StrictAndPaperRunEveryCheckAndReferenceOnlyThoseAlwaysOn) {
  const EvalProfile strict = StrictProfile();
  const EvalProfile paper = PaperProfile();
  const EvalProfile reference = ReferenceProfile();
  for (const IntegrityCheck& check : IntegrityChecks()) {
    // A source rule that only reports (try_except) rejects in no profile by default.
    const bool runs = check.kind == CheckKind::kRuntime || check.rejects_by_default;
    EXPECT_EQ(CheckApplies(check, strict), runs) << check.name;
    EXPECT_EQ(CheckApplies(check, paper), runs) << check.name;
    const bool always = check.kind == CheckKind::kRuntime && check.enabled == nullptr;
    EXPECT_EQ(CheckApplies(check, reference), always) << check.name;
  }
  EXPECT_FALSE(GetIntegrityCheck("try_except").rejects_by_default);
  EXPECT_EQ(ProfileCaveat("strict"), "");
  EXPECT_EQ(ProfileCaveat("paper"), "");
  EXPECT_NE(ProfileCaveat("reference").find("gameable"), std::string_view::npos);
}

TEST(ChecksTest, PaperKeepsTheReleasesFiguresAndReferenceIsTheRelease) {
  const EvalProfile paper = PaperProfile();
  const EvalProfile reference = ReferenceProfile();
  // What decides an honest kernel's figures is the release's in both.
  EXPECT_EQ(paper.job.atol, reference.job.atol);
  EXPECT_EQ(paper.job.criterion, reference.job.criterion);
  EXPECT_EQ(paper.job.trials, reference.job.trials);
  EXPECT_EQ(paper.job.distributions, reference.job.distributions);
  EXPECT_EQ(paper.job.warmup_runs, reference.job.warmup_runs);
  EXPECT_EQ(paper.job.timed_runs, reference.job.timed_runs);
  EXPECT_EQ(paper.statistic, reference.statistic);
  EXPECT_EQ(paper.seed, reference.seed);
  EXPECT_FALSE(paper.job.interleave_reference);
  EXPECT_FALSE(paper.job.l2_flush);
  // The checks that cannot move them are on in paper only.
  EXPECT_TRUE(paper.job.revalidate_timed && paper.job.fresh_inputs_per_run);
  EXPECT_FALSE(reference.job.revalidate_timed || reference.job.fresh_inputs_per_run);
  EXPECT_TRUE(paper.job.poison_memory && paper.job.kernel_trace);
  EXPECT_FALSE(reference.job.poison_memory || reference.job.kernel_trace);
  // Integrity trials on the distributions paper's own trials leave out; strict's trials cover
  // them already.
  EXPECT_EQ(paper.job.integrity_distributions, (std::vector<std::string>{"normal", "uniform_pm1"}));
  EXPECT_TRUE(reference.job.integrity_distributions.empty());
  EXPECT_TRUE(StrictProfile().job.integrity_distributions.empty());
  EvalProfile strict_on = StrictProfile();
  SetIntegrityChecks(strict_on, true);
  EXPECT_TRUE(strict_on.job.integrity_distributions.empty());
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
