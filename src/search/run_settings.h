#pragma once

// The settings of one search run (RunSpec) as a table (core/setting.h): the step budget, the
// seed, the kernel language, the reviser, confirm_best and the limits of each LLM call. The
// flags of `run`, `bench` and `adapt`, the config file's [run] section, the run database's stored
// options and docs/configuration.md's settings table are all made from it, so each is declared
// once.
//
//   RunSpec spec;
//   RETURN_IF_ERROR(ApplyRunSettings({{"steps", 25}, {"confirm_best", true}}, spec));
//   nlohmann::json stored = RunSettingsJson(spec);  // What a new run keeps in its options.

#include <nlohmann/json.hpp>
#include <vector>

#include "core/result.h"
#include "core/setting.h"
#include "search/run_spec.h"

namespace adaexplore {

const std::vector<Setting<RunSpec>>& RunSettingTable();

// Every setting of the table, by name.
nlohmann::json RunSettingsJson(const RunSpec& spec);

// Sets those present in `json`, all or none: an unknown name, a wrong type or a value out of
// range is an error naming the setting.
Status ApplyRunSettings(const nlohmann::json& json, RunSpec& spec);

}  // namespace adaexplore
