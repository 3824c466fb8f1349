#include "adapt/synthesis.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "shared_data.h"
#include "sys/fs.h"

namespace adaexplore {
namespace {

TEST(SynthesisTest, ReadsLayerNamesInEveryForm) {
  TempDir dir = *TempDir::Create("layers");
  ASSERT_TRUE(WriteFileAtomic(dir.path() + "/a.json",
                              R"({"layers": [{"name": "nn.Conv2d"}, {"name": "nn.GELU"}]})")
                  .ok());
  ASSERT_TRUE(WriteFileAtomic(dir.path() + "/b.json", R"(["nn.ReLU", "nn.Tanh"])").ok());
  ASSERT_TRUE(WriteFileAtomic(dir.path() + "/c.txt", "# layers\nnn.ReLU\n\n  nn.SiLU  \n").ok());
  ASSERT_TRUE(WriteFileAtomic(dir.path() + "/d.json", R"({"layers": 3})").ok());
  EXPECT_EQ(*ReadLayerNames(dir.path() + "/a.json"),
            (std::vector<std::string>{"nn.Conv2d", "nn.GELU"}));
  EXPECT_EQ(*ReadLayerNames(dir.path() + "/b.json"),
            (std::vector<std::string>{"nn.ReLU", "nn.Tanh"}));
  EXPECT_EQ(*ReadLayerNames(dir.path() + "/c.txt"),
            (std::vector<std::string>{"nn.ReLU", "nn.SiLU"}));
  EXPECT_FALSE(ReadLayerNames(dir.path() + "/d.json").ok());
  EXPECT_FALSE(ReadLayerNames(dir.path() + "/missing.json").ok());
  EXPECT_GE(DefaultTorchLayers().size(), 30u);
}

TEST(SynthesisTest, ReadsTheReferenceLayerList) {
  const std::filesystem::path file =
      test_data::SharedDataDirectory() / "adaexplore-release/pytorch_layers_activations.json";
  if (!std::filesystem::exists(file)) {
    GTEST_SKIP() << "no " << file;
  }
  Result<std::vector<std::string>> names = ReadLayerNames(file.string());
  ASSERT_TRUE(names.ok()) << names.status().ToString();
  // 86 layers and 28 activations, as the reference samples from.
  EXPECT_EQ(names->size(), 114u);
  EXPECT_EQ(names->front(), "nn.Conv2d");
  EXPECT_NE(std::find(names->begin(), names->end(), "nn.Hardshrink"), names->end());
}

}  // namespace
}  // namespace adaexplore
