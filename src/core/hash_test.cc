#include "core/hash.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

TEST(HashTest, KnownSha256) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(HashTest, BuilderSeparatesParts) {
  EXPECT_NE(Sha256Builder().Add("ab").Add("c").Finish(),
            Sha256Builder().Add("a").Add("bc").Finish());
  EXPECT_EQ(Sha256Builder().Add("x").Finish(), Sha256Builder().Add("x").Finish());
}

}  // namespace
}  // namespace adaexplore
