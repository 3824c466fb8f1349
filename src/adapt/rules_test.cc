#include "adapt/rules.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

TEST(RulesTest, ParsesWriterRepliesInTheirUsualShapes) {
  auto rule = [](std::string_view reply) { return ParseRuleReply(reply); };
  EXPECT_EQ(**rule(R"({"rule": "You cannot call tl.float32 as a function."})"),
            "You cannot call tl.float32 as a function.");
  EXPECT_EQ(**rule("Sure.\n```json\n{\"rule\": \"You cannot use break in a kernel.\"}\n```"),
            "You cannot use break in a kernel.");
  EXPECT_EQ(**rule("<think>hmm {not json}</think>\nYou cannot use continue in a Triton kernel."),
            "You cannot use continue in a Triton kernel.");
  EXPECT_FALSE(rule(R"({"rule": "no guidance"})")->has_value());
  EXPECT_FALSE(rule("No guidance.")->has_value());
  EXPECT_FALSE(rule("I am not sure what to say.").ok());
  EXPECT_FALSE(rule(R"({"advice": "You cannot x."})").ok());
}

TEST(RulesTest, ParsesJudgeRepliesStrictly) {
  Result<JudgeVerdict> v = ParseJudgeReply(
      R"(```json
{"is_duplicate": true, "matched_index": 2, "confidence": 0.8, "reason": "same"}
```)",
      3);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->duplicate);
  EXPECT_EQ(v->matched_index, 2);
  EXPECT_DOUBLE_EQ(v->confidence, 0.8);
  EXPECT_FALSE(ParseJudgeReply(R"({"is_duplicate": true, "matched_index": 4})", 3).ok());
  EXPECT_FALSE(ParseJudgeReply("yes, rule 2", 3).ok());
  EXPECT_FALSE(ParseJudgeReply(R"({"matched_index": 1})", 3).ok());
  Result<JudgeVerdict> no = ParseJudgeReply(R"({"is_duplicate": "false", "matched_index": 0})", 3);
  ASSERT_TRUE(no.ok());
  EXPECT_FALSE(no->duplicate);
}

TEST(RulesTest, FindsTheNamesAProgramDefines) {
  const std::vector<std::string> names = DefinedNames(
      "PADDING_LEFT = 3\n@triton.jit\ndef _fused_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):\n"
      "    acc_tile = tl.zeros((BLOCK,), tl.float32)\nclass ModelNew(nn.Module):\n    pass\n");
  for (const char* name :
       {"PADDING_LEFT", "_fused_kernel", "x_ptr", "y_ptr", "BLOCK", "acc_tile", "ModelNew"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
  EXPECT_EQ(std::find(names.begin(), names.end(), "zeros"), names.end());
}

TEST(RulesTest, RejectsRulesTiedToOneProgram) {
  const std::vector<std::string> programs = {
      "PADDING_LEFT = 2\ndef fwd(x_ptr, out_ptr):\n  pass\n"};
  EXPECT_EQ(
      RuleProblem("You cannot call tl.float32 as a function inside a Triton kernel.", programs),
      "");
  EXPECT_NE(
      RuleProblem("You cannot reference the name PADDING_LEFT when it is not defined.", programs)
          .find("PADDING_LEFT"),
      std::string::npos);
  EXPECT_NE(RuleProblem("You cannot have an `else:` at line 223 of the module source.", programs),
            "");
  EXPECT_NE(RuleProblem("Avoid tl.float32(x).", programs), "");
  EXPECT_NE(RuleProblem("You cannot " + std::string(400, 'x'), programs), "");
  // Names every kernel shares are fine.
  EXPECT_EQ(RuleProblem("You cannot pass BLOCK_SIZE both in the launch grid and as an autotuned "
                        "meta-parameter.",
                        {"BLOCK_SIZE = 128\n"}),
            "");
}

TEST(RulesTest, PrefiltersBySharedWords) {
  const std::vector<std::string> rules = {
      "You cannot call tl.float32 as a function inside a Triton kernel.",
      "You cannot use break inside a Triton kernel loop.",
      "You cannot index a Triton tensor with a constexpr index."};
  EXPECT_EQ(SimilarRules("You cannot call tl.float32 like a function in a kernel.", rules),
            (std::vector<size_t>{0}));
  EXPECT_TRUE(SimilarRules("You cannot allocate shared memory beyond the limit.", rules).empty());
  EXPECT_DOUBLE_EQ(RuleSimilarity(rules[0], rules[0]), 1.0);
}

}  // namespace
}  // namespace adaexplore
