#include "eval/settings.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

// Another valid value of `s` than `current`.
nlohmann::json Another(const Setting<EvalProfile>& s, const nlohmann::json& current) {
  switch (s.kind) {
    case SettingKind::kBoolean:
      return !current.get<bool>();
    case SettingKind::kInteger:
      return current.get<int64_t>() + 1;
    case SettingKind::kNumber:
      return current.get<double>() * 2 + 1;
    case SettingKind::kChoice:
      for (std::string_view choice : s.choices) {
        if (choice != current.get<std::string>()) {
          return std::string(choice);
        }
      }
      break;
    case SettingKind::kText:
      return current.get<std::string>() + "x";
    case SettingKind::kIntegerList:
      return nlohmann::json::array({1, 2});
  }
  return current;
}

// The table says which settings reach the worker and which key the result cache; here both are
// checked against what ToJobOptions sends and what Fingerprint holds, so a setting added to the
// profile but not to the job options (or the reverse) fails.
TEST(EvalSettingsTest, TheTableSaysWhatReachesTheWorkerAndTheCacheKey) {
  for (const EvalProfile& base : {StrictProfile(), PaperProfile()}) {
    for (const Setting<EvalProfile>& s : EvalSettingTable()) {
      EvalProfile changed = base;
      const nlohmann::json value = Another(s, s.get(base));
      ASSERT_TRUE(ApplyEvalSettings({{std::string(s.name), value}}, changed).ok()) << s.name;
      EXPECT_EQ(s.get(changed), value) << s.name;
      const nlohmann::json before = ToJson(base.ToJobOptions());
      const nlohmann::json after = ToJson(changed.ToJobOptions());
      if (s.job_option.empty()) {
        EXPECT_EQ(after, before) << s.name << " is not sent, but changes the job options";
      } else {
        ASSERT_TRUE(after.contains(std::string(s.job_option))) << s.name;
        EXPECT_NE(after[std::string(s.job_option)], before[std::string(s.job_option)])
            << s.name << " does not reach job option " << s.job_option;
      }
      EXPECT_EQ(changed.Fingerprint() != base.Fingerprint(), s.fingerprint)
          << s.name << ": the table and the fingerprint disagree";
    }
  }
}

TEST(EvalSettingsTest, EverySettingHasAFlagADefaultAndHelp) {
  for (const Setting<EvalProfile>& s : EvalSettingTable()) {
    EXPECT_TRUE(s.flag.starts_with("--")) << s.name;
    EXPECT_FALSE(s.default_text.empty()) << s.name;
    EXPECT_FALSE(s.help.empty()) << s.name;
  }
}

TEST(EvalSettingsTest, PrecisionResetsTheStrictTolerancesUnlessOneIsGivenWithIt) {
  EvalProfile p = StrictProfile();
  ASSERT_TRUE(ApplyEvalSettings({{"precision", "bf16"}}, p).ok());
  EXPECT_EQ(p.job.atol, 1e-2);
  EvalProfile q = StrictProfile();
  ASSERT_TRUE(ApplyEvalSettings({{"atol", 3e-3}, {"precision", "bf16"}}, q).ok());
  EXPECT_EQ(q.job.atol, 3e-3);
  EXPECT_EQ(q.job.rtol, 1e-2);
}

// KernelBench main's check: allclose at get_tolerance_for_precision's 1e-4 (fp32) or 1e-2 (half
// precisions), 5 trials on the task's inputs seeded from 42, 3 warm-ups and 100 runs on one input
// set with L2 flushed, the mean; no integrity check of ours.
TEST(EvalSettingsTest, TheKernelBenchProfileIsKernelBenchMainsCheck) {
  EvalProfile p = KernelBenchProfile();
  EXPECT_EQ(p.name, "kernelbench");
  EXPECT_EQ(p.job.criterion, Criterion::kAllclose);
  EXPECT_EQ(p.job.atol, 1e-4);
  EXPECT_EQ(p.job.rtol, 1e-4);
  EXPECT_EQ(p.job.trials, 5);
  EXPECT_EQ(p.job.seed_mode, SeedMode::kPaper);
  EXPECT_EQ(p.job.distributions, std::vector<std::string>{"task"});
  EXPECT_EQ(p.job.warmup_runs, 3);
  EXPECT_EQ(p.job.timed_runs, 100);
  EXPECT_FALSE(p.job.fresh_inputs_per_run);
  EXPECT_FALSE(p.job.interleave_reference);
  EXPECT_TRUE(p.job.l2_flush);
  EXPECT_EQ(p.statistic, Statistic::kMean);
  EXPECT_FALSE(p.job.revalidate_timed);
  ASSERT_TRUE(ApplyEvalSettings({{"precision", "bf16"}}, p).ok());
  EXPECT_EQ(p.job.atol, 1e-2);
  EXPECT_EQ(ProfileByName("kernelbench")->name, "kernelbench");
}

}  // namespace
}  // namespace adaexplore
