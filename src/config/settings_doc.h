#pragma once

// The documents' tables made from the declarations: the settings table of docs/configuration.md,
// from the settings tables (eval/settings.h, search/settings.h): name, section, flag, type and
// range, documented default, whether the worker receives it and whether it keys the result cache;
// and the integrity checks of docs/eval.md, from eval/checks.h: what each rejects and the profiles
// that run it. A test keeps the documents' copies equal to these.

#include <string>

namespace adaexplore {

// The Markdown table, one row per setting, [eval] first.
std::string SettingsMarkdown();

// The Markdown table of integrity checks, one row per check, in the registry's order.
std::string ChecksMarkdown();

}  // namespace adaexplore
