#include "eval/size_variants.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

TEST(SizeVariantsTest, LargeSizesChangeSmallOnesStay) {
  // KernelBench Level 2's 1_Conv2D_ReLU_BiasAdd: batch 128, channels 3 -> 16, 32x32, kernel 3.
  const std::vector<SizeVariant> variants = SizeVariants({{"batch_size", 128},
                                                          {"in_channels", 3},
                                                          {"out_channels", 16},
                                                          {"height", 32},
                                                          {"width", 32},
                                                          {"kernel_size", 3}});
  ASSERT_EQ(variants.size(), 2u);
  EXPECT_EQ(variants[0].name, "smaller");
  EXPECT_EQ(variants[0].sizes,
            (std::map<std::string, int64_t>{{"batch_size", 65}, {"height", 17}, {"width", 17}}));
  EXPECT_EQ(variants[1].name, "uneven");
  EXPECT_EQ(variants[1].sizes,
            (std::map<std::string, int64_t>{{"batch_size", 129}, {"height", 33}, {"width", 33}}));
  EXPECT_EQ(SizesText(variants[0].sizes), "batch_size=65, height=17, width=17");
}

TEST(SizeVariantsTest, EverySmallerSizeIsOddAndAboveTheFloor) {
  for (int64_t v = kVariedAbove + 1; v < 5000; ++v) {
    const std::vector<SizeVariant> variants = SizeVariants({{"n", v}});
    ASSERT_FALSE(variants.empty());
    for (const SizeVariant& variant : variants) {
      const int64_t changed = variant.sizes.at("n");
      EXPECT_GT(changed, kVariedAbove);
      EXPECT_NE(changed, v);
      if (variant.name == "smaller") {
        EXPECT_EQ(changed % 2, 1) << v;
        EXPECT_LE(changed, std::max<int64_t>(v / 2 + 1, kVariedAbove + 1)) << v;
      }
    }
  }
}

TEST(SizeVariantsTest, ATaskWithoutLargeSizesHasNoVariant) {
  EXPECT_TRUE(SizeVariants({}).empty());
  EXPECT_TRUE(SizeVariants({{"kernel_size", 3}, {"groups", 16}}).empty());
}

}  // namespace
}  // namespace adaexplore
