#include "task/task_file_name.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>

namespace adaexplore {
namespace {

TEST(TaskFileStemTest, PlainNamesAreKept) {
  EXPECT_EQ(TaskFileStem("19_ReLU"), "19_ReLU");
  EXPECT_EQ(TaskFileStem("gemm-v1.2"), "gemm-v1.2");
}

TEST(TaskFileStemTest, APathBecomesOneComponentInsideTheFolder) {
  const std::string_view names[] = {
      "../../x", "/etc/passwd", "..",   ".", ".hidden",
      "a/b",     "a\\b",        "x\ny", "",  std::string_view("a\0b", 3)};
  for (std::string_view name : names) {
    const std::string stem = TaskFileStem(name);
    EXPECT_EQ(stem.find('/'), std::string::npos) << name;
    EXPECT_NE(stem.front(), '.') << name;
    EXPECT_NE(stem, name) << name;
    for (char c : stem) {
      EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')
          << name;
    }
  }
  EXPECT_EQ(TaskFileStem("../../x"), "_._.._x-9cdf6a50");  // The example in the header.
}

TEST(TaskFileStemTest, NamesThatDifferNeverShareAFile) {
  EXPECT_NE(TaskFileStem("a/b"), TaskFileStem("a_b"));
  EXPECT_NE(TaskFileStem("a/b"), TaskFileStem("a:b"));
  const std::string long_a(500, 'a');
  const std::string long_b = long_a + "b";
  EXPECT_NE(TaskFileStem(long_a), TaskFileStem(long_b));
  EXPECT_LE(TaskFileStem(long_b).size(), kMaxStemBytes + 9);
}

}  // namespace
}  // namespace adaexplore
