#include "prompt/template.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

const std::set<std::string> kKnown = {"name", "rules", "code"};

TEST(PromptTemplateTest, FillsValuesAndKeepsOtherBracesLiteral) {
  auto t = PromptTemplate::Parse("Hi {{name}}! cfg = {'a': {1}} {x} }}\n", "t", kKnown);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->Render({{"name", "Ada"}}), "Hi Ada! cfg = {'a': {1}} {x} }}\n");
  EXPECT_EQ(t->Render({}), "Hi ! cfg = {'a': {1}} {x} }}\n");
  // A value is inserted verbatim, even if it looks like a placeholder.
  EXPECT_EQ(t->Render({{"name", "{{code}}"}}), "Hi {{code}}! cfg = {'a': {1}} {x} }}\n");
}

TEST(PromptTemplateTest, SectionsAppearOnlyWithAValue) {
  auto t = PromptTemplate::Parse("A{{#rules}}\nRules:\n{{rules}}\n{{/rules}}B", "t", kKnown);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->Render({{"rules", "- one"}}), "A\nRules:\n- one\nB");
  EXPECT_EQ(t->Render({{"rules", ""}}), "AB");
  EXPECT_EQ(t->Render({}), "AB");
  auto nested =
      PromptTemplate::Parse("{{#rules}}[{{#code}}{{code}}{{/code}}]{{/rules}}", "t", kKnown);
  ASSERT_TRUE(nested.ok());
  EXPECT_EQ(nested->Render({{"rules", "x"}}), "[]");
  EXPECT_EQ(nested->Render({{"rules", "x"}, {"code", "c"}}), "[c]");
}

TEST(PromptTemplateTest, MistakesInTemplatesAreErrorsWithTheLine) {
  Result<PromptTemplate> typo = PromptTemplate::Parse("line\n{{nmae}}", "proposer.md", kKnown);
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("proposer.md:2: unknown placeholder 'nmae'"),
            std::string::npos)
      << typo.status().message();
  EXPECT_FALSE(PromptTemplate::Parse("{{name", "t", kKnown).ok());
  EXPECT_FALSE(PromptTemplate::Parse("{{#rules}}x", "t", kKnown).ok());
  EXPECT_FALSE(PromptTemplate::Parse("{{/rules}}", "t", kKnown).ok());
  EXPECT_FALSE(PromptTemplate::Parse("{{#rules}}{{/name}}", "t", kKnown).ok());
}

}  // namespace
}  // namespace adaexplore
