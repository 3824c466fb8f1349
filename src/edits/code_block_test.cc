#include "edits/code_block.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

constexpr const char* kKernel =
    "import torch\nimport triton\n\nclass ModelNew(torch.nn.Module):\n    pass\n";

TEST(CodeBlockTest, TakesTheFirstPythonBlock) {
  std::string reply = std::string("Here is my plan.\n```\nTraceback: error\n```\n") +
                      "```python\n" + kKernel + "```\nAnd a second one:\n```python\nx = 2\n```\n";
  Result<std::string> kernel = ExtractKernel(reply);
  ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
  EXPECT_EQ(*kernel, kKernel);
}

TEST(CodeBlockTest, AcceptsPyTagsTildesAndLongerFences) {
  EXPECT_EQ(*ExtractKernel(std::string("~~~py\n") + kKernel + "~~~\n"), kKernel);
  // A four-backtick fence may hold a three-backtick line (a docstring example).
  std::string inner = "x = '''\n```\n'''\n";
  EXPECT_EQ(*ExtractKernel("````Python\n" + inner + "````\n"), inner);
  // Windows line endings.
  EXPECT_EQ(*ExtractKernel("```python\r\nx = 1\r\n```\r\n"), "x = 1\n");
}

TEST(CodeBlockTest, FallsBackToAnUntaggedModuleOrABareModule) {
  EXPECT_EQ(*ExtractKernel(std::string("```\n") + std::string(kKernel) + "```"),
            std::string(kKernel));
  EXPECT_EQ(*ExtractKernel(kKernel), kKernel);
}

TEST(CodeBlockTest, IgnoresReasoningSections) {
  std::string reply = std::string("<think>maybe ```python\nwrong = 1\n``` no</think>") +
                      "```python\n" + kKernel + "```";
  EXPECT_EQ(*ExtractKernel(reply), kKernel);
}

TEST(CodeBlockTest, ExplainsWhatIsWrong) {
  Result<std::string> cut = ExtractKernel(std::string("```python\n") + kKernel + "    def fo");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("cut off"), std::string::npos);
  Result<std::string> none = ExtractKernel("I cannot help with that.");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no fenced"), std::string::npos);
  Result<std::string> other = ExtractKernel("```cpp\nint main() {}\n```\n");
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("none is tagged python"), std::string::npos);
  EXPECT_FALSE(ExtractKernel("```python\n\n```").ok());
}

TEST(CodeBlockTest, FindsEveryBlockWithItsLine) {
  std::vector<CodeBlock> blocks = FindCodeBlocks("a\n```cuda\nk\n```\nb\n```python\np\n");
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].language, "cuda");
  EXPECT_EQ(blocks[0].line, 2u);
  EXPECT_TRUE(blocks[0].closed);
  EXPECT_EQ(blocks[1].language, "python");
  EXPECT_FALSE(blocks[1].closed);
}

}  // namespace
}  // namespace adaexplore
