#include "adapt/skill_memory.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "eval/profile.h"
#include "prompt/prompts.h"
#include "shared_data.h"
#include "sys/fs.h"

namespace adaexplore {
namespace {

class SkillMemoryTest : public ::testing::Test {
 protected:
  SkillMemory Open() {
    Result<SkillMemory> memory = SkillMemory::Open(dir_.path() + "/memory.sqlite");
    EXPECT_TRUE(memory.ok()) << memory.status().ToString();
    return *std::move(memory);
  }
  TempDir dir_ = *TempDir::Create("skill-memory");
};

TEST_F(SkillMemoryTest, ImportsTheReferenceFormatAndExportsIt) {
  SkillMemory memory = Open();
  Result<ImportStats> stats = memory.ImportText(
      "You cannot call tl.float32 as a function.||138.0\n"
      "\n"
      "You cannot use break in a kernel.||2\n"
      "You cannot use continue in a kernel.\n"
      "||4\n"
      "You cannot do this.||many\n"
      "You cannot use break in a kernel.||1.0\n",
      "old.txt");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->lines, 6);
  EXPECT_EQ(stats->added, 3);
  EXPECT_EQ(stats->merged, 1);
  EXPECT_EQ(stats->skipped, 2);
  ASSERT_EQ(stats->problems.size(), 2u);
  EXPECT_NE(stats->problems[0].find("line 5"), std::string::npos);
  EXPECT_EQ(*memory.ExportText(),
            "You cannot call tl.float32 as a function.||138\n"
            "You cannot use break in a kernel.||3\n"
            "You cannot use continue in a kernel.||1\n");
  // Provenance: which lines of which file.
  Result<std::vector<Rule>> rules = memory.List(3);
  ASSERT_TRUE(rules.ok());
  ASSERT_EQ(rules->size(), 2u);
  Result<std::vector<RuleSupport>> support = memory.Support((*rules)[1].id);
  ASSERT_TRUE(support.ok());
  ASSERT_EQ(support->size(), 2u);
  EXPECT_EQ((*support)[0].source, "old.txt line 3");
  EXPECT_EQ((*support)[1].source, "old.txt line 7");
}

TEST_F(SkillMemoryTest, LearnedRulesCarryTheirFailures) {
  SkillMemory memory = Open();
  const std::vector<RuleSupport> two = {
      {.task = "a", .model = "openai:m", .signature = "TypeError: x", .source = "run 1 node 2"},
      {.task = "b", .model = "openai:m", .signature = "TypeError: x", .source = "run 1 node 5"}};
  Result<int64_t> id = memory.AddRule("You cannot call tl.float32 as a function.", two);
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(memory.Get(*id)->count, 2);
  ASSERT_TRUE(memory.Reinforce(*id, {two[0]}).ok());
  EXPECT_EQ(memory.Get(*id)->count, 3);
  EXPECT_EQ(memory.Support(*id)->size(), 3u);
  EXPECT_EQ(memory.Support(*id)->at(1).task, "b");
  EXPECT_FALSE(memory.Get(999).ok());
  // The same text again is the same rule.
  EXPECT_EQ(*memory.AddRule("You cannot call tl.float32 as a function.", {}), *id);
  EXPECT_EQ(memory.Get(*id)->count, 4);
}

TEST_F(SkillMemoryTest, PromptRulesRespectThresholdAndCaps) {
  SkillMemory memory = Open();
  ASSERT_TRUE(
      memory.ImportText("You cannot a.||5\nYou cannot b.||3\nYou cannot c.||2\n", "f").ok());
  EXPECT_EQ(*memory.PromptRules({.min_count = 3}),
            (std::vector<std::string>{"You cannot a.", "You cannot b."}));
  EXPECT_EQ(memory.PromptRules({.min_count = 1, .max_rules = 1})->size(), 1u);
  EXPECT_EQ(memory.PromptRules({.min_count = 1, .max_chars = 20})->size(), 1u);
}

TEST_F(SkillMemoryTest, KnowsASqliteFileFromText) {
  Open();
  EXPECT_TRUE(IsSqliteFile(dir_.path() + "/memory.sqlite"));
  ASSERT_TRUE(WriteFileAtomic(dir_.path() + "/m.txt", "You cannot a.||3\n").ok());
  EXPECT_FALSE(IsSqliteFile(dir_.path() + "/m.txt"));
  EXPECT_FALSE(IsSqliteFile(dir_.path() + "/missing"));
}

// The reference release's memory: 174 rules (173 line ends: the last line has none), 78 of them at
// count >= 3, and those 78 reach the proposer's prompt.
TEST_F(SkillMemoryTest, TheReleasedMemoryImportsAndReachesThePrompt) {
  const std::filesystem::path file =
      test_data::SharedDataDirectory() / "adaexplore-release/general_memory_v1_200.txt";
  if (!std::filesystem::exists(file)) {
    GTEST_SKIP() << "no " << file;
  }
  SkillMemory memory = Open();
  Result<ImportStats> stats = memory.ImportText(*ReadFile(file.string()), file.filename());
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->skipped, 0);
  EXPECT_EQ(memory.List(0)->size(), 174u);
  Result<std::vector<std::string>> rules = memory.PromptRules({.min_count = 3});
  ASSERT_TRUE(rules.ok());
  ASSERT_EQ(rules->size(), 78u);
  EXPECT_EQ(memory.List(0)->front().count, 138);

  Result<PromptSet> prompts = PromptSet::Load(std::string(ADAEXPLORE_SOURCE_DIR) + "/prompts",
                                              KernelLanguage::kTriton, StrictProfile());
  ASSERT_TRUE(prompts.ok()) << prompts.status().ToString();
  const std::string user = prompts
                               ->Proposer({.task_name = "t.py",
                                           .task_source = "class Model: pass",
                                           .hardware = "NVIDIA H200",
                                           .memory_rules = *rules})
                               .back()
                               .content;
  for (const std::string& rule : *rules) {
    EXPECT_NE(user.find(rule), std::string::npos) << rule;
  }
  const std::vector<Rule> all = *memory.List(0);
  EXPECT_EQ(user.find(all.back().text), std::string::npos);  // Count 1: left out.
}

}  // namespace
}  // namespace adaexplore
