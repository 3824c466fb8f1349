#pragma once

// Names of enum values, from one table per enum: the name a value is stored and printed as, and
// the value a name parses to.
//
//   constexpr std::array<std::pair<Verdict, std::string_view>, 9> kNames = {{...}};
//   std::string_view name = NameIn(kNames, verdict, "error");
//   std::optional<Verdict> verdict = ValueIn(kNames, "correct");

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace adaexplore {

// The name of `value`, or `fallback` when the table lacks it.
template <typename Enum, size_t N>
constexpr std::string_view NameIn(const std::array<std::pair<Enum, std::string_view>, N>& names,
                                  Enum value, std::string_view fallback) {
  for (const auto& [v, name] : names) {
    if (v == value) {
      return name;
    }
  }
  return fallback;
}

// The value named `name`, if any.
template <typename Enum, size_t N>
constexpr std::optional<Enum> ValueIn(const std::array<std::pair<Enum, std::string_view>, N>& names,
                                      std::string_view name) {
  for (const auto& [v, n] : names) {
    if (n == name) {
      return v;
    }
  }
  return std::nullopt;
}

}  // namespace adaexplore
