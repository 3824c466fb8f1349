#pragma once

// The README's settings table, made from the settings tables (eval/settings.h,
// search/settings.h): name, section, flag, type and range, documented default, whether the
// worker receives it and whether it keys the result cache. A test keeps the README's copy equal
// to this.

#include <string>

namespace adaexplore {

// The Markdown table, one row per setting, [eval] first.
std::string SettingsMarkdown();

}  // namespace adaexplore
