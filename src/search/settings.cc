#include "search/settings.h"

namespace adaexplore {
namespace {

using SearchSetting = Setting<SearchSettings>;

// A number setting over the field `ref` reaches; `integer` for counts.
template <typename Ref>
SearchSetting Row(SearchSetting row, Ref ref) {
  BindRef(row, ref);
  row.fingerprint = false;  // The search's settings decide which kernels are made, not verdicts.
  return row;
}

std::vector<SearchSetting> MakeTable() {
  constexpr SettingKind kNumber = SettingKind::kNumber;
  constexpr SettingKind kInteger = SettingKind::kInteger;
  return {
      Row(
          {.name = "exploration",
           .kind = kNumber,
           .default_text = "0.3",
           .help = "c, UCB1's exploration constant",
           .min = 0},
          [](auto& s) -> auto& { return s.explore.exploration; }),
      Row(
          {.name = "expand_ratio",
           .kind = kNumber,
           .flag = "--expand-ratio",
           .default_text = "1.0 (0.5 on kernelbench:level3)",
           .help = "c_e / c: how much more a node with a free large step explores",
           .min = 0,
           .min_exclusive = true},
          [](auto& s) -> auto& { return s.explore.expand_ratio; }),
      Row(
          {.name = "alpha",
           .kind = kNumber,
           .default_text = "0.0",
           .help = "Q = alpha * max + (1 - alpha) * mean reward",
           .min = 0,
           .max = 1},
          [](auto& s) -> auto& { return s.explore.alpha; }),
      Row(
          {.name = "p_large",
           .kind = kNumber,
           .default_text = "0.2",
           .help = "chance of a large step where none is forced",
           .min = 0,
           .max = 1},
          [](auto& s) -> auto& { return s.explore.p_large; }),
      Row(
          {.name = "small_step_limit",
           .kind = kInteger,
           .default_text = "2",
           .help = "small children after which a node gets large steps only",
           .min = 0},
          [](auto& s) -> auto& { return s.explore.small_step_limit; }),
      Row(
          {.name = "memory_window",
           .kind = kInteger,
           .default_text = "5",
           .help = "nodes in a small step's context",
           .min = 1},
          [](auto& s) -> auto& { return s.explore.memory_window; }),
      Row(
          {.name = "pool_size",
           .kind = kInteger,
           .default_text = "5",
           .help = "most kernels in a large step's pool",
           .min = 1},
          [](auto& s) -> auto& { return s.explore.pool_size; }),
      Row(
          {.name = "softmax_temperature",
           .kind = kNumber,
           .default_text = "1.0",
           .help = "irle: the elite kernels are drawn with weights exp(speedup / this)",
           .min = 0,
           .min_exclusive = true},
          [](auto& s) -> auto& { return s.explore.softmax_temperature; }),
      Row(
          {.name = "reward_compile_failure",
           .kind = kNumber,
           .default_text = "0.0",
           .help = "reward of a kernel that does not compile or run"},
          [](auto& s) -> auto& { return s.rewards.compile_failure; }),
      Row(
          {.name = "reward_incorrect",
           .kind = kNumber,
           .default_text = "0.05",
           .help = "reward of an incorrect kernel"},
          [](auto& s) -> auto& { return s.rewards.incorrect; }),
      Row(
          {.name = "reward_correct_low",
           .kind = kNumber,
           .default_text = "0.4",
           .help = "reward of a correct kernel at reward_speedup_min"},
          [](auto& s) -> auto& { return s.rewards.correct_low; }),
      Row(
          {.name = "reward_correct_high",
           .kind = kNumber,
           .default_text = "1.6",
           .help = "reward of a correct kernel at reward_speedup_max"},
          [](auto& s) -> auto& { return s.rewards.correct_high; }),
      Row(
          {.name = "reward_speedup_min",
           .kind = kNumber,
           .default_text = "0.1",
           .help = "speedup at and below which a correct kernel gets reward_correct_low",
           .min = 0,
           .min_exclusive = true},
          [](auto& s) -> auto& { return s.rewards.speedup_min; }),
      Row(
          {.name = "reward_speedup_max",
           .kind = kNumber,
           .default_text = "10.0",
           .help = "speedup at and above which a correct kernel gets reward_correct_high",
           .min = 0,
           .min_exclusive = true},
          [](auto& s) -> auto& { return s.rewards.speedup_max; }),
  };
}

}  // namespace

const std::vector<Setting<SearchSettings>>& SearchSettingTable() {
  static const std::vector<Setting<SearchSettings>> table = MakeTable();
  return table;
}

nlohmann::json SearchSettingsJson(const SearchSettings& s) {
  return SettingsJson(SearchSettingTable(), s);
}

Status ApplySearchSettings(const nlohmann::json& json, SearchSettings& settings) {
  SearchSettings s = settings;
  RETURN_IF_ERROR(ApplySettings(SearchSettingTable(), json, s, "search"));
  const RewardOptions& r = s.rewards;
  if (r.speedup_max <= r.speedup_min || r.correct_high < r.correct_low) {
    return InvalidArgument(
        "search settings: reward_speedup_min must be below reward_speedup_max, "
        "reward_correct_high >= reward_correct_low");
  }
  settings = s;
  return Status::Ok();
}

}  // namespace adaexplore
