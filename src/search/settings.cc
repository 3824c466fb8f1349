#include "search/settings.h"

#include "core/settings_reader.h"

namespace adaexplore {

nlohmann::json SearchSettingsJson(const SearchSettings& s) {
  const ExploreOptions& e = s.explore;
  const RewardOptions& r = s.rewards;
  return {{"exploration", e.exploration},
          {"expand_ratio", e.expand_ratio},
          {"alpha", e.alpha},
          {"p_large", e.p_large},
          {"small_step_limit", e.small_step_limit},
          {"memory_window", e.memory_window},
          {"pool_size", e.pool_size},
          {"reward_compile_failure", r.compile_failure},
          {"reward_incorrect", r.incorrect},
          {"reward_correct_low", r.correct_low},
          {"reward_correct_high", r.correct_high},
          {"reward_speedup_min", r.speedup_min},
          {"reward_speedup_max", r.speedup_max}};
}

Status ApplySearchSettings(const nlohmann::json& json, SearchSettings& settings) {
  SearchSettings s = settings;
  SettingsReader in(json, SearchSettingsJson(settings), "search");
  in.Read("exploration", s.explore.exploration)
      .Read("expand_ratio", s.explore.expand_ratio)
      .Read("alpha", s.explore.alpha)
      .Read("p_large", s.explore.p_large)
      .Read("small_step_limit", s.explore.small_step_limit)
      .Read("memory_window", s.explore.memory_window)
      .Read("pool_size", s.explore.pool_size)
      .Read("reward_compile_failure", s.rewards.compile_failure)
      .Read("reward_incorrect", s.rewards.incorrect)
      .Read("reward_correct_low", s.rewards.correct_low)
      .Read("reward_correct_high", s.rewards.correct_high)
      .Read("reward_speedup_min", s.rewards.speedup_min)
      .Read("reward_speedup_max", s.rewards.speedup_max);
  RETURN_IF_ERROR(in.status());
  const ExploreOptions& e = s.explore;
  const RewardOptions& r = s.rewards;
  if (e.exploration < 0 || e.expand_ratio <= 0) {
    return InvalidArgument("exploration must be >= 0 and expand_ratio > 0");
  }
  if (e.alpha < 0 || e.alpha > 1 || e.p_large < 0 || e.p_large > 1) {
    return InvalidArgument("alpha and p_large must lie in [0, 1]");
  }
  if (e.small_step_limit < 0 || e.memory_window < 1 || e.pool_size < 1) {
    return InvalidArgument("small_step_limit must be >= 0, memory_window and pool_size >= 1");
  }
  if (r.speedup_min <= 0 || r.speedup_max <= r.speedup_min || r.correct_high < r.correct_low) {
    return InvalidArgument(
        "reward_speedup_min must be > 0 and below reward_speedup_max, reward_correct_high >= "
        "reward_correct_low");
  }
  settings = s;
  return Status::Ok();
}

}  // namespace adaexplore
