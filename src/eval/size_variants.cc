#include "eval/size_variants.h"

#include <algorithm>

namespace adaexplore {

namespace {

int64_t Smaller(int64_t v) { return std::max(kVariedAbove + 1, (v / 2) | 1); }

int64_t Uneven(int64_t v) { return v + 1; }

}  // namespace

std::vector<SizeVariant> SizeVariants(const std::map<std::string, int64_t>& task_sizes) {
  std::vector<SizeVariant> variants;
  for (const auto& [name, change] :
       {std::pair{"smaller", &Smaller}, std::pair{"uneven", &Uneven}}) {
    SizeVariant variant{.name = name};
    for (const auto& [size, value] : task_sizes) {
      if (value > kVariedAbove && change(value) != value) {
        variant.sizes[size] = change(value);
      }
    }
    if (!variant.sizes.empty()) {
      variants.push_back(std::move(variant));
    }
  }
  return variants;
}

std::string SizesText(const std::map<std::string, int64_t>& sizes) {
  std::string out;
  for (const auto& [name, value] : sizes) {
    out += (out.empty() ? "" : ", ") + name + "=" + std::to_string(value);
  }
  return out;
}

}  // namespace adaexplore
