// Malformed replies never crash the parsers: a realistic reply cut at every byte, and replies
// with tags and fences spliced in at random places, parse to some result (under ASan/UBSan in
// CI), and whatever edits they yield apply without fault.

#include <gtest/gtest.h>

#include <random>

#include "edits/code_block.h"
#include "edits/search_replace.h"

namespace adaexplore {
namespace {

constexpr const char* kKernel =
    "import torch\nimport triton\n\n\nclass ModelNew(torch.nn.Module):\n"
    "    def forward(self, x):\n        return x + 1\n";

constexpr const char* kReply =
    "<think>plan: ```python\nx\n```</think>Fix below.\n```\nTraceback: <old_str_1>\n```\n"
    "<reasoning_1>r</reasoning_1>\n<old_str_1>\n        return x + 1\n</old_str_1>\n"
    "<new_str_1>\n```python\n        return x + 2\n```\n</new_str_1>\n"
    "<<<<<<< SEARCH\nimport torch\n=======\nimport torch  # t\n>>>>>>> REPLACE\n"
    "```python\nimport torch\nclass ModelNew:\n    pass\n```\n";

void Exercise(const std::string& reply) {
  Result<std::string> kernel = ExtractKernel(reply);
  if (kernel.ok()) {
    EXPECT_FALSE(kernel->empty());
  } else {
    EXPECT_FALSE(kernel.status().message().empty());
  }
  EditParse parse = ParseEdits(reply);
  EditOutcome outcome = ApplyEdits(kKernel, parse.edits);
  EXPECT_EQ(outcome.reports.size(), parse.edits.size());
}

TEST(ReplyFuzzTest, EveryTruncationParses) {
  const std::string reply = kReply;
  for (size_t cut = 0; cut <= reply.size(); ++cut) {
    Exercise(reply.substr(0, cut));
  }
}

TEST(ReplyFuzzTest, SplicedTagsAndFencesParse) {
  const std::vector<std::string> pieces = {"<old_str_1>",
                                           "</old_str_1>",
                                           "<new_str_1>",
                                           "</new_str_1>",
                                           "```",
                                           "```python\n",
                                           "~~~",
                                           "<old_str_99999999999>",
                                           "<old_str_>",
                                           "\n",
                                           "<<<<<<< SEARCH\n",
                                           "=======",
                                           ">>>>>>> REPLACE",
                                           "<think>",
                                           "</think>",
                                           "\r\n",
                                           std::string(1, '\0')};
  std::mt19937 random(7);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string reply = kReply;
    const int splices = 1 + static_cast<int>(random() % 6);
    for (int k = 0; k < splices; ++k) {
      const size_t at = random() % (reply.size() + 1);
      reply.insert(at, pieces[random() % pieces.size()]);
    }
    Exercise(reply);
  }
}

}  // namespace
}  // namespace adaexplore
