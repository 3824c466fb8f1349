#pragma once

// The search's constants as settings ([search] in adaexplore.toml, stored with each run): the
// policy's (ExploreOptions) and the reward's (RewardOptions), defaults as the reference's.
//
//   exploration, expand_ratio, alpha, p_large, small_step_limit, memory_window, pool_size,
//   softmax_temperature,
//   reward_compile_failure, reward_incorrect, reward_correct_low, reward_correct_high,
//   reward_speedup_min, reward_speedup_max

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "core/setting.h"
#include "search/policy.h"
#include "search/tree.h"

namespace adaexplore {

struct SearchSettings {
  ExploreOptions explore;
  RewardOptions rewards;
};

// The settings as a table (core/setting.h): name, kind, range, flag, default, help.
const std::vector<Setting<SearchSettings>>& SearchSettingTable();

// Every setting, by the names above.
nlohmann::json SearchSettingsJson(const SearchSettings& settings);

// Sets those present in `json`, all or none: an unknown name, a wrong type or a value out of
// range (a probability outside [0, 1], a window below 1, speedup_max <= speedup_min...) is an
// error naming the setting.
Status ApplySearchSettings(const nlohmann::json& json, SearchSettings& settings);

}  // namespace adaexplore
