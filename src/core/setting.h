#pragma once

// Setting<Target>: one user-facing setting declared once, as a row of a table: its name (the TOML
// key in its section and the key a stored run keeps it under), its type and allowed values, its
// command-line flag, whether it is sent to the evaluation worker and whether it enters the result
// cache's fingerprint, its documented default, and how it reads and writes a field of Target (an
// EvalProfile, SearchSettings). The config file's reader, the flags, the stored settings of a
// run, the checks of the job options and the fingerprint, and docs/configuration.md's settings
// table are all made from these tables (eval/settings.h, search/settings.h), so a setting exists
// everywhere or nowhere.
//
//   const std::vector<Setting<EvalProfile>>& table = EvalSettingTable();
//   RETURN_IF_ERROR(ApplySettings(table, {{"trials", 3}}, profile, "evaluation"));

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/closest.h"
#include "core/result.h"

namespace adaexplore {

// kIntegerList: a list of integers, each in the setting's range (GPU indices); its flag's text is
// comma-separated ("0,2"), its TOML value an array.
enum class SettingKind { kInteger, kNumber, kBoolean, kChoice, kText, kIntegerList };

std::string_view SettingKindName(SettingKind kind);

template <typename Target>
struct Setting {
  std::string_view name;  // TOML key and stored-run key: "trials".
  SettingKind kind = SettingKind::kNumber;
  std::string_view flag;          // "--trials"; empty: the setting has no flag.
  std::string_view job_option;    // The JobOptions field it is sent as; empty: not sent.
  bool fingerprint = false;       // Whether it enters the result cache's key.
  std::string_view default_text;  // The documented default, as docs/configuration.md shows it.
  std::string_view help;          // One line, for --help and docs/configuration.md.
  double min = -std::numeric_limits<double>::infinity();  // Allowed range (numbers, lists).
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;             // (min, max] instead of [min, max].
  std::vector<std::string_view> choices;  // kChoice: the allowed values.
  // The value of a stored run made before the setting existed (it lacks the key), where that is
  // not today's default; null: today's default.
  nlohmann::json older_runs;
  std::function<nlohmann::json(const Target&)> get;
  // Sets a value that has been checked against kind, range and choices; may still refuse it.
  std::function<Status(Target&, const nlohmann::json&)> set;
};

// get/set for a plain field of Target.
template <typename Target, typename T>
void BindField(Setting<Target>& setting, T Target::*field) {
  setting.get = [field](const Target& t) { return nlohmann::json(t.*field); };
  setting.set = [field](Target& t, const nlohmann::json& v) {
    t.*field = v.get<T>();
    return Status::Ok();
  };
}

// get/set for a field reached through `ref` (a nested field: settings.explore.alpha). `ref` is
// a generic lambda, `[](auto& s) -> auto& { return s.explore.alpha; }`, so that it reads a const
// Target as well as it writes a mutable one.
template <typename Target, typename Ref>
void BindRef(Setting<Target>& setting, Ref ref) {
  setting.get = [ref](const Target& t) { return nlohmann::json(ref(t)); };
  setting.set = [ref](Target& t, const nlohmann::json& v) {
    auto& field = ref(t);
    field = v.get<std::decay_t<decltype(field)>>();
    return Status::Ok();
  };
}

// Whether the number `x` lies in the setting's range.
template <typename Target>
bool InSettingRange(const Setting<Target>& s, double x) {
  const bool below = s.min_exclusive ? x <= s.min : x < s.min;
  return !below && x <= s.max && !std::isnan(x);
}

// What a number out of the setting's range is told: "must lie in [1, 1024]".
template <typename Target>
std::string SettingRangeText(const Setting<Target>& s) {
  if (std::isinf(s.max)) {  // No upper bound to speak of.
    return fmt::format("must be {} {:g}", s.min_exclusive ? "above" : "at least", s.min);
  }
  return fmt::format("must lie in {}{:g}, {:g}]", s.min_exclusive ? "(" : "[", s.min, s.max);
}

// Whether `value` is of the setting's kind, range and choices: Ok, or an error naming it.
template <typename Target>
Status CheckSettingValue(const Setting<Target>& s, const nlohmann::json& value) {
  auto wrong = [&](std::string_view why) {
    return InvalidArgument(fmt::format("setting '{}' = {}: {}", s.name, value.dump(), why));
  };
  switch (s.kind) {
    case SettingKind::kBoolean:
      return value.is_boolean() ? Status::Ok() : wrong("must be true or false");
    case SettingKind::kText:
      return value.is_string() ? Status::Ok() : wrong("must be a string");
    case SettingKind::kChoice: {
      if (!value.is_string()) {
        return wrong("must be a string");
      }
      for (std::string_view choice : s.choices) {
        if (value.get<std::string>() == choice) {
          return Status::Ok();
        }
      }
      std::string all;
      for (std::string_view choice : s.choices) {
        all += (all.empty() ? "" : ", ") + std::string(choice);
      }
      return wrong("must be one of " + all);
    }
    case SettingKind::kIntegerList: {
      if (!value.is_array()) {
        return wrong("must be a list of integers");
      }
      for (const nlohmann::json& item : value) {
        if (!item.is_number_integer()) {
          return wrong("must be a list of integers");
        }
        if (!InSettingRange(s, item.get<double>())) {
          return wrong("each " + SettingRangeText(s));
        }
      }
      return Status::Ok();
    }
    case SettingKind::kInteger:
    case SettingKind::kNumber: {
      if (s.kind == SettingKind::kInteger ? !value.is_number_integer() : !value.is_number()) {
        return wrong(s.kind == SettingKind::kInteger ? "must be an integer" : "must be a number");
      }
      return InSettingRange(s, value.get<double>()) ? Status::Ok() : wrong(SettingRangeText(s));
    }
  }
  return wrong("unknown kind");
}

// Every setting of `table` by name, as `target` has it.
template <typename Target>
nlohmann::json SettingsJson(const std::vector<Setting<Target>>& table, const Target& target) {
  nlohmann::json j = nlohmann::json::object();
  for (const Setting<Target>& s : table) {
    j[std::string(s.name)] = s.get(target);
  }
  return j;
}

// Sets those of `values` present, in the table's order, all or none: an unknown name or a value
// of the wrong kind or out of range is an error naming the setting (`what`: "evaluation").
template <typename Target>
Status ApplySettings(const std::vector<Setting<Target>>& table, const nlohmann::json& values,
                     Target& target, std::string_view what) {
  if (!values.is_object()) {
    return InvalidArgument(fmt::format("{} settings must be a table", what));
  }
  for (const auto& [key, value] : values.items()) {
    std::vector<std::string> names;
    for (const Setting<Target>& s : table) {
      names.emplace_back(s.name);
    }
    if (std::find(names.begin(), names.end(), key) == names.end()) {
      return InvalidArgument(
          fmt::format("unknown {} setting '{}'{}", what, key, DidYouMeanSuffix(key, names)));
    }
  }
  Target changed = target;
  for (const Setting<Target>& s : table) {
    const std::string name(s.name);
    if (!values.contains(name)) {
      continue;
    }
    RETURN_IF_ERROR(CheckSettingValue(s, values[name]).WithContext(what));
    RETURN_IF_ERROR(s.set(changed, values[name]).WithContext(what));
  }
  target = std::move(changed);
  return Status::Ok();
}

// The value of a flag's text for `s`: "3" for an integer, "true" for a boolean...; an error
// names the flag.
template <typename Target>
Result<nlohmann::json> SettingValueFromText(const Setting<Target>& s, const std::string& text) {
  nlohmann::json value = text;
  if (s.kind == SettingKind::kIntegerList) {
    value = nlohmann::json::array();  // "0,2": each item a JSON integer, or the list is wrong.
    for (size_t start = 0; start <= text.size();) {
      const size_t comma = std::min(text.find(',', start), text.size());
      value.push_back(nlohmann::json::parse(text.substr(start, comma - start), nullptr,
                                            /*allow_exceptions=*/false));
      start = comma + 1;
    }
  } else if (s.kind != SettingKind::kChoice && s.kind != SettingKind::kText) {
    value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  }
  if (Status valid = CheckSettingValue(s, value); !valid.ok()) {
    return InvalidArgument(fmt::format("{} {}: {}", s.flag, text,
                                       valid.message().substr(valid.message().find(": ") + 2)));
  }
  return value;
}

}  // namespace adaexplore
