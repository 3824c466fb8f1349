#include "core/json_text.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

TEST(JsonTextTest, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  const nlohmann::json value = {{"source", std::string("x = '\xff'")}};
  EXPECT_THROW((void)value.dump(), nlohmann::json::type_error);  // What JsonText is for.
  EXPECT_EQ(JsonText(value), "{\"source\":\"x = '\xef\xbf\xbd'\"}");
  EXPECT_EQ(JsonText({{"a", 1}}, 2), "{\n  \"a\": 1\n}");
}

TEST(JsonTextTest, FindsTheFirstByteThatIsNotUtf8) {
  EXPECT_EQ(FirstInvalidUtf8("plain ascii"), std::nullopt);
  EXPECT_EQ(FirstInvalidUtf8("caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80"), std::nullopt);
  EXPECT_EQ(FirstInvalidUtf8("ab\xff"), 2u);
  EXPECT_EQ(FirstInvalidUtf8("a\xc3"), 1u);              // Cut off.
  EXPECT_EQ(FirstInvalidUtf8("a\xc0\xaf"), 1u);          // Overlong '/'.
  EXPECT_EQ(FirstInvalidUtf8("a\xe0\x80\xaf"), 1u);      // Overlong, three bytes.
  EXPECT_EQ(FirstInvalidUtf8("a\xed\xa0\x80"), 1u);      // A surrogate (U+D800).
  EXPECT_EQ(FirstInvalidUtf8("a\xf4\x90\x80\x80"), 1u);  // Past U+10FFFF.
  EXPECT_EQ(FirstInvalidUtf8("a\xe2\x9c"), 1u);
  EXPECT_EQ(FirstInvalidUtf8("\xe2\x28\xa1"), 0u);  // A bad continuation byte.
}

}  // namespace
}  // namespace adaexplore
