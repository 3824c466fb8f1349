#include "adapt/signature.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

TEST(SignatureTest, KeepsTheDecisiveLineWithoutWhere) {
  EXPECT_EQ(ErrorSignature("Traceback (most recent call last):\n"
                           "  File \"/tmp/adaexplore-run-x1/k.py\", line 41, in forward\n"
                           "    y = PADDING_LEFT + 1\n"
                           "NameError: name 'PADDING_LEFT' is not defined\n"),
            "NameError: name '<name>' is not defined");
  // Triton's compile errors end with the underlying error after the source excerpt.
  EXPECT_EQ(ErrorSignature("triton.compiler.errors.CompilationError: at 12:8:\n"
                           "    x = tl.float32(y)\n        ^\n"
                           "TypeError(\"'dtype' object is not callable\")"),
            "TypeError(\"'dtype' object is not callable\")");
}

TEST(SignatureTest, TheSameMistakeInTwoProgramsHasOneSignature) {
  const std::string a = ErrorSignature(
      "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 131072, "
      "Hardware limit: 101376. Reducing block sizes or `num_stages` may help.");
  const std::string b = ErrorSignature(
      "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 262144, "
      "Hardware limit: 232448. Reducing block sizes or `num_stages` may help.");
  EXPECT_EQ(a, b);
  EXPECT_EQ(ErrorSignature("RuntimeError: CUDA error at 0x7f3a2c001000 in /usr/lib/x.so:12"),
            ErrorSignature("RuntimeError: CUDA error at 0x55d1 in /opt/y/lib.so:99"));
  // The reference's log format repeats the kind.
  EXPECT_EQ(ErrorSignature("builtins.AssertionError: AssertionError: num_warps must be a power "
                           "of 2"),
            "AssertionError: num_warps must be a power of <n>");
}

TEST(SignatureTest, VocabularyInQuotesStaysProgramNamesGo) {
  EXPECT_NE(ErrorSignature("TypeError: 'dtype' object is not callable"),
            ErrorSignature("TypeError: 'tuple' object is not callable"));
  EXPECT_EQ(ErrorSignature("TypeError: dynamic_func() got multiple values for argument 'BLOCK_M'"),
            ErrorSignature("TypeError: dynamic_func() got multiple values for argument 'x_ptr'"));
}

TEST(SignatureTest, EmptyAndPlainTexts) {
  EXPECT_EQ(ErrorSignature(""), "");
  EXPECT_EQ(ErrorSignature("\n \n"), "");
  EXPECT_EQ(ErrorSignature("compile failed"), "compile failed");
  EXPECT_EQ(ErrorSignature("first\nlast line 3"), "last line <n>");
}

TEST(SignatureTest, GroupsInOrderOfFirstAppearance) {
  const std::vector<SignatureGroup> groups = GroupBySignature({"b", "a", "b", "c", "a"});
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].signature, "b");
  EXPECT_EQ(groups[0].members, (std::vector<size_t>{0, 2}));
  EXPECT_EQ(groups[1].members, (std::vector<size_t>{1, 4}));
  EXPECT_EQ(groups[2].members, (std::vector<size_t>{3}));
}

}  // namespace
}  // namespace adaexplore
