#pragma once

// SettingsReader: named settings from a JSON object into typed fields (the evaluation profile's
// and the search's settings, from the config file, flags and stored runs). A name not in `known`
// and a value of the wrong type are errors naming the setting; after the first error Read does
// nothing, so a caller reads everything and checks status() once.
//
//   SettingsReader in(json, Defaults(s), "search");
//   in.Read("alpha", s.alpha).Read("pool_size", s.pool_size);
//   RETURN_IF_ERROR(in.status());

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/status.h"

namespace adaexplore {

class SettingsReader {
 public:
  // `what` names the kind of setting in errors ("evaluation", "search").
  SettingsReader(const nlohmann::json& settings, const nlohmann::json& known,
                 std::string_view what);

  template <typename T>
  SettingsReader& Read(const char* name, T& out) {
    if (!status_.ok() || !settings_.contains(name)) {
      return *this;
    }
    try {
      out = settings_[name].get<T>();
    } catch (const nlohmann::json::exception&) {
      status_ = InvalidArgument(fmt::format("{} setting '{}' has the wrong type", what_, name));
    }
    return *this;
  }

  bool Has(const char* name) const { return settings_.contains(name); }
  const Status& status() const { return status_; }

 private:
  nlohmann::json settings_;  // A copy: small, and callers may pass a temporary.
  std::string what_;
  Status status_;
};

}  // namespace adaexplore
