#pragma once

// JSON for enums with a names table (core/enum_names.h): a value is written as its name, and a
// name is read back as its value. Reading anything else (another string, a number) throws
// std::invalid_argument, which the callers that read untrusted JSON catch at the boundary, as
// they catch nlohmann's own exceptions. Found by ADL: include this where such an enum meets JSON.

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "core/enum_names.h"

namespace adaexplore {

template <NamedEnum Enum>
void to_json(nlohmann::json& j, Enum value) {
  j = EnumName(value);
}

template <NamedEnum Enum>
void from_json(const nlohmann::json& j, Enum& value) {
  std::optional<Enum> parsed =
      j.is_string() ? EnumFromName<Enum>(j.get<std::string>()) : std::nullopt;
  if (!parsed) {
    std::string all;
    for (std::string_view name : EnumNameList<Enum>()) {
      all += (all.empty() ? "" : ", ") + std::string(name);
    }
    throw std::invalid_argument(j.dump() + " is not one of " + all);
  }
  value = *parsed;
}

}  // namespace adaexplore
