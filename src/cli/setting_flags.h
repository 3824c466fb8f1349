#pragma once

// The flags of a settings table (core/setting.h): registered on a command from the table, kept
// as the text given (a setting whose flag was not given is absent: no sentinel values), and read
// into settings that are checked like the config file's, with errors that name the flag.
//
//   SettingFlags eval_settings;
//   AddSettingFlags(*command, EvalSettingTable(), eval_settings);
//   ...parse...
//   ASSIGN_OR_RETURN(nlohmann::json given, SettingFlagValues(EvalSettingTable(), eval_settings));

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/setting.h"

namespace adaexplore {

struct SettingFlags {
  std::map<std::string, std::string> given;  // Setting name -> the text its flag was given.
};

// What --help shows for a setting's value: INT, NUMBER, one|of|these, INT,... or TEXT.
template <typename Target>
std::string FlagTypeName(const Setting<Target>& s) {
  switch (s.kind) {
    case SettingKind::kInteger:
      return "INT";
    case SettingKind::kNumber:
      return "NUMBER";
    case SettingKind::kChoice:
      return fmt::format("{}", fmt::join(s.choices, "|"));
    case SettingKind::kIntegerList:
      return "INT,...";
    default:
      return "TEXT";
  }
}

// Adds a flag for every setting of `table` that has one; `flags` must outlive the parse.
template <typename Target>
void AddSettingFlags(CLI::App& command, const std::vector<Setting<Target>>& table,
                     SettingFlags& flags) {
  for (const Setting<Target>& s : table) {
    if (s.flag.empty()) {
      continue;
    }
    const std::string name(s.name);
    const std::string help = fmt::format("{} ({})", s.help, s.default_text);
    if (s.kind == SettingKind::kBoolean) {
      // --flag sets it, --no-flag clears it (what a setting that is on by default needs).
      const std::string flag(s.flag);
      command.add_flag_function(
          fmt::format("{},!--no-{}", flag, flag.substr(2)),
          [&flags, name](std::int64_t count) { flags.given[name] = count > 0 ? "true" : "false"; },
          help);
    } else {
      command
          .add_option_function<std::string>(
              std::string(s.flag), [&flags, name](const std::string& v) { flags.given[name] = v; },
              help)
          ->type_name(FlagTypeName(s));
    }
  }
}

// The settings whose flags were given, typed and checked.
template <typename Target>
Result<nlohmann::json> SettingFlagValues(const std::vector<Setting<Target>>& table,
                                         const SettingFlags& flags) {
  nlohmann::json values = nlohmann::json::object();
  for (const Setting<Target>& s : table) {
    auto it = flags.given.find(std::string(s.name));
    if (it != flags.given.end()) {
      ASSIGN_OR_RETURN(values[std::string(s.name)], SettingValueFromText(s, it->second));
    }
  }
  return values;
}

}  // namespace adaexplore
