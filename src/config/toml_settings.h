#pragma once

// Reading a settings table (core/setting.h) from a TOML table of the configuration file: the
// values of the keys the table declares, as JSON of their TOML types (an integer stays an
// integer, so that a range check can tell 2 from 2.5), each checked against its declaration, and
// the keys of a TOML table that nothing declares, refused. Errors name the file and the table.
//
//   RETURN_IF_ERROR(RefuseUnknownKeys(*llm, names, "[llm]", origin));
//   ASSIGN_OR_RETURN(nlohmann::json values, TomlSettings(*llm, LlmSettingTable(), "[llm]",
//   origin));

#include <fmt/format.h>
#include <toml++/toml.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/setting.h"

namespace adaexplore {

// A TOML scalar or array as JSON (null for a table).
nlohmann::json TomlValueJson(const toml::node& node);

// An error for the first key of `table` not in `known`.
Status RefuseUnknownKeys(const toml::table& table, const std::set<std::string>& known,
                         const std::string& where, const std::string& origin);

// The names a table declares.
template <typename Target>
std::set<std::string> SettingNames(const std::vector<Setting<Target>>& settings) {
  std::set<std::string> names;
  for (const Setting<Target>& s : settings) {
    names.insert(std::string(s.name));
  }
  return names;
}

// The values `table` gives for the settings declared, each checked.
template <typename Target>
Result<nlohmann::json> TomlSettings(const toml::table& table,
                                    const std::vector<Setting<Target>>& settings,
                                    const std::string& where, const std::string& origin) {
  nlohmann::json values = nlohmann::json::object();
  for (const Setting<Target>& s : settings) {
    const toml::node* node = table.get(s.name);
    if (node == nullptr) {
      continue;
    }
    const nlohmann::json value = TomlValueJson(*node);
    if (Status valid = CheckSettingValue(s, value); !valid.ok()) {
      return InvalidArgument(fmt::format("{}: {} {}", origin, where, valid.message()));
    }
    values[std::string(s.name)] = value;
  }
  return values;
}

}  // namespace adaexplore
