#include "core/settings_reader.h"

namespace adaexplore {

SettingsReader::SettingsReader(const nlohmann::json& settings, const nlohmann::json& known,
                               std::string_view what)
    : settings_(settings), what_(what) {
  if (!settings_.is_object()) {
    status_ = InvalidArgument(fmt::format("{} settings are not an object", what_));
    return;
  }
  for (const auto& [name, value] : settings_.items()) {
    if (!known.contains(name)) {
      status_ = InvalidArgument(fmt::format("unknown {} setting '{}'", what_, name));
      return;
    }
  }
}

}  // namespace adaexplore
