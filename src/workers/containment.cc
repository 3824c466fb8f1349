#include "workers/containment.h"

namespace adaexplore {

std::vector<std::string> MissingProtections(const nlohmann::json& containment) {
  std::vector<std::string> missing;
  const nlohmann::json empty = nlohmann::json::object();
  const nlohmann::json& reasons = containment.is_object() && containment.contains("reasons") &&
                                          containment["reasons"].is_object()
                                      ? containment["reasons"]
                                      : empty;
  for (std::string_view name : kSandboxProtections) {
    const std::string key(name);
    const bool in_force = containment.is_object() && containment.contains(key) &&
                          containment[key].is_boolean() && containment[key].get<bool>();
    if (in_force) {
      continue;
    }
    std::string line = key;
    if (reasons.contains(key) && reasons[key].is_string()) {
      line += ": " + reasons[key].get<std::string>();
    } else if (containment.is_object() && containment.contains("off")) {
      line += ": the sandbox is off";
    }
    missing.push_back(std::move(line));
  }
  return missing;
}

}  // namespace adaexplore
