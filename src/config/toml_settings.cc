#include "config/toml_settings.h"

#include "core/closest.h"

namespace adaexplore {

nlohmann::json TomlValueJson(const toml::node& node) {
  if (const toml::array* items = node.as_array()) {
    nlohmann::json list = nlohmann::json::array();
    for (const toml::node& item : *items) {
      list.push_back(TomlValueJson(item));
    }
    return list;
  }
  if (std::optional<int64_t> i = node.value_exact<int64_t>()) {
    return *i;
  }
  if (std::optional<double> d = node.value_exact<double>()) {
    return *d;
  }
  if (std::optional<bool> b = node.value_exact<bool>()) {
    return *b;
  }
  if (std::optional<std::string> text = node.value_exact<std::string>()) {
    return *text;
  }
  return nullptr;
}

Status RefuseUnknownKeys(const toml::table& table, const std::set<std::string>& known,
                         const std::string& where, const std::string& origin) {
  for (const auto& [key, value] : table) {
    if (!known.contains(std::string(key.str()))) {
      return InvalidArgument(
          origin + ": unknown key '" + std::string(key.str()) + "' in " + where +
          DidYouMeanSuffix(key.str(), std::vector<std::string>(known.begin(), known.end())));
    }
  }
  return Status::Ok();
}

}  // namespace adaexplore
