#include "edits/search_replace.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

constexpr const char* kKernel = R"(import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x + 1, mask=mask)


def launch(x, y):
    n = x.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
)";

TEST(SearchReplaceTest, ParsesNumberedTagsWithReasoning) {
  std::string reply = R"(Two changes.
<reasoning_1>Bigger blocks.</reasoning_1>
<old_str_1>
BLOCK=1024)
</old_str_1>
<new_str_1>
BLOCK=2048)
</new_str_1>
<reasoning_2>Matching grid.</reasoning_2>
<old_str_2>triton.cdiv(n, 1024)</old_str_2>
<new_str_2>triton.cdiv(n, 2048)</new_str_2>
)";
  EditParse parse = ParseEdits(reply);
  ASSERT_EQ(parse.edits.size(), 2u);
  EXPECT_TRUE(parse.problems.empty());
  EXPECT_EQ(parse.edits[0].index, 1);
  EXPECT_EQ(parse.edits[0].reasoning, "Bigger blocks.");
  EXPECT_EQ(parse.edits[0].old_text, "BLOCK=1024)");
  EXPECT_EQ(parse.edits[1].new_text, "triton.cdiv(n, 2048)");
  EditOutcome outcome = ApplyEdits(kKernel, parse.edits);
  EXPECT_EQ(outcome.applied_count(), 2);
  EXPECT_NE(outcome.kernel.find("add_kernel[(triton.cdiv(n, 2048),)](x, y, n, BLOCK=2048)"),
            std::string::npos);
  EXPECT_EQ(outcome.Feedback(), "");
}

TEST(SearchReplaceTest, StripsFencesInsideTagsAndReportsBrokenPairs) {
  std::string reply =
      "<old_str_1>\n```python\nmask = offs < n\n```\n</old_str_1>\n"
      "<new_str_1>\n```python\nmask = (offs < n) & (offs >= 0)\n```\n</new_str_1>\n"
      "<old_str_2>x + 1</old_str_2> and then nothing\n"
      "<old_str_3>never closed";
  EditParse parse = ParseEdits(reply);
  ASSERT_EQ(parse.edits.size(), 1u);
  EXPECT_EQ(parse.edits[0].old_text, "mask = offs < n\n");
  ASSERT_EQ(parse.problems.size(), 2u);
  EXPECT_NE(parse.problems[0].find("edit 2"), std::string::npos);
  EXPECT_NE(parse.problems[1].find("never closed"), std::string::npos);
}

TEST(SearchReplaceTest, ReadsSearchReplaceBlocks) {
  std::string reply =
      "<<<<<<< SEARCH\n    x = tl.load(x_ptr + offs, mask=mask)\n=======\n"
      "    x = tl.load(x_ptr + offs, mask=mask, other=0.0)\n>>>>>>> REPLACE\n";
  EditParse parse = ParseEdits(reply);
  ASSERT_EQ(parse.edits.size(), 1u);
  EditOutcome outcome = ApplyEdits(kKernel, parse.edits);
  ASSERT_EQ(outcome.applied_count(), 1);
  EXPECT_EQ(outcome.reports[0].match, EditMatch::kExact);
  EXPECT_NE(outcome.kernel.find("other=0.0)"), std::string::npos);
}

TEST(SearchReplaceTest, ToleratesTrailingWhitespaceAndBlankLines) {
  Edit edit{
      .index = 1,
      .old_text = "\n\n    mask = offs < n   \n    x = tl.load(x_ptr + offs, mask=mask)\t\n\n",
      .new_text = "    mask = offs < n\n    x = tl.load(x_ptr + offs, mask=mask, other=0)\n"};
  EditOutcome outcome = ApplyEdits(kKernel, {edit});
  ASSERT_EQ(outcome.reports[0].match, EditMatch::kWhitespace);
  EXPECT_NE(outcome.kernel.find("    x = tl.load(x_ptr + offs, mask=mask, other=0)\n    tl.store"),
            std::string::npos);
  EXPECT_TRUE(outcome.kernel.ends_with("BLOCK=1024)\n"));
}

TEST(SearchReplaceTest, ReindentsWhenTheWholeEditIsShifted) {
  // The model dropped the function body's indentation in both old and new text.
  Edit edit{.index = 1,
            .old_text = "n = x.numel()\nadd_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)",
            .new_text =
                "n = x.numel()\nif n == 0:\n    return\nadd_kernel[(triton.cdiv(n, 1024),)]"
                "(x, y, n, BLOCK=1024)"};
  EditOutcome outcome = ApplyEdits(kKernel, {edit});
  ASSERT_EQ(outcome.reports[0].match, EditMatch::kIndentation);
  EXPECT_NE(
      outcome.kernel.find("    n = x.numel()\n    if n == 0:\n        return\n    add_kernel"),
      std::string::npos)
      << outcome.kernel;
}

TEST(SearchReplaceTest, SkipsMissingAmbiguousAndEmptyEditsButAppliesTheRest) {
  std::vector<Edit> edits = {
      {.index = 1, .old_text = "tl.program_id(1)", .new_text = "tl.program_id(0)"},
      {.index = 2, .old_text = "mask=mask", .new_text = "mask=m"},
      {.index = 3, .old_text = "  \n", .new_text = "x"},
      {.index = 4, .old_text = "x + 1", .new_text = "x + 2"},
  };
  EditOutcome outcome = ApplyEdits(kKernel, edits);
  EXPECT_EQ(outcome.reports[0].match, EditMatch::kNotFound);
  EXPECT_EQ(outcome.reports[1].match, EditMatch::kAmbiguous);
  EXPECT_EQ(outcome.reports[1].occurrences, 2);
  EXPECT_EQ(outcome.reports[2].match, EditMatch::kEmptyOld);
  EXPECT_EQ(outcome.reports[3].match, EditMatch::kExact);
  EXPECT_EQ(outcome.applied_count(), 1);
  EXPECT_NE(outcome.kernel.find("x + 2"), std::string::npos);
  std::string feedback = outcome.Feedback();
  EXPECT_NE(feedback.find("edit 1 was skipped: its old_str matches nothing"), std::string::npos);
  EXPECT_NE(feedback.find("edit 2 was skipped: its old_str matches 2 places"), std::string::npos);
  EXPECT_NE(feedback.find("edit 3 was skipped: its old_str is empty"), std::string::npos);
}

TEST(SearchReplaceTest, LaterEditsSeeEarlierOnes) {
  std::vector<Edit> edits = {{.index = 1, .old_text = "x + 1", .new_text = "x * 3"},
                             {.index = 2, .old_text = "x * 3", .new_text = "x * 4"}};
  EditOutcome outcome = ApplyEdits(kKernel, edits);
  EXPECT_EQ(outcome.applied_count(), 2);
  EXPECT_NE(outcome.kernel.find("x * 4"), std::string::npos);
}

TEST(SearchReplaceTest, ReplyWithoutEditsGivesNothing) {
  EditParse parse = ParseEdits("I think the kernel is already optimal.");
  EXPECT_TRUE(parse.edits.empty());
  EXPECT_TRUE(parse.problems.empty());
}

}  // namespace
}  // namespace adaexplore
