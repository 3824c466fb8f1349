#pragma once

// Names of enum values, from one table per enum: the name a value is stored and printed as, and
// the value a name parses to.
//
//   constexpr std::array<std::pair<Verdict, std::string_view>, 9> kNames = {{...}};
//   std::string_view name = NameIn(kNames, verdict, "error");
//   std::optional<Verdict> verdict = ValueIn(kNames, "correct");
//
// An enum whose table is public (a setting's choices, say) declares it as EnumTraits<E>::kNames,
// beside the enum; EnumName, EnumFromName and EnumNameList then work on it, and
// core/enum_json.h converts it to and from JSON by name.
//
//   template <> struct EnumTraits<Precision> {
//     static constexpr std::array<std::pair<Precision, std::string_view>, 3> kNames = {{...}};
//   };

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

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

// Specialised beside an enum to declare its names (see above).
template <typename Enum>
struct EnumTraits;

template <typename Enum>
concept NamedEnum = std::is_enum_v<Enum> && requires {
  EnumTraits<Enum>::kNames;
};

// The name of `value` ("?" for a value outside the table: a broken invariant).
template <NamedEnum Enum>
constexpr std::string_view EnumName(Enum value) {
  return NameIn(EnumTraits<Enum>::kNames, value, "?");
}

// The value named `name`, if any.
template <NamedEnum Enum>
constexpr std::optional<Enum> EnumFromName(std::string_view name) {
  return ValueIn(EnumTraits<Enum>::kNames, name);
}

// Every name, in the table's order.
template <NamedEnum Enum>
std::vector<std::string_view> EnumNameList() {
  std::vector<std::string_view> names;
  for (const auto& entry : EnumTraits<Enum>::kNames) {
    names.push_back(entry.second);
  }
  return names;
}

}  // namespace adaexplore
