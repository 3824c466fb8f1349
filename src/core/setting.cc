#include "core/setting.h"

namespace adaexplore {

std::string_view SettingKindName(SettingKind kind) {
  switch (kind) {
    case SettingKind::kInteger:
      return "integer";
    case SettingKind::kNumber:
      return "number";
    case SettingKind::kBoolean:
      return "boolean";
    case SettingKind::kChoice:
      return "choice";
    case SettingKind::kText:
      return "text";
    case SettingKind::kIntegerList:
      return "list of integers";
  }
  return "?";
}

}  // namespace adaexplore
