#include "core/nonce.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

TEST(NonceTest, HexOfTheRequestedLengthAndNeverTheSame) {
  const std::string a = RandomHex(16);
  EXPECT_EQ(a.size(), 32u);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos) << a;
  EXPECT_NE(a, RandomHex(16));
  EXPECT_EQ(RandomHex(0), "");
}

}  // namespace
}  // namespace adaexplore
