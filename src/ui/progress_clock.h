#pragma once

// The time part of a progress line: how long so far and, from the mean time per finished item,
// about how long is left ("1m30s · about 4m30s left"). Rough by nature: items differ.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/clock.h"

namespace adaexplore {

// "45s", "3m05s", "1h02m".
std::string ShortDuration(Duration d);

// About how long `total - done` more items take, from the mean of the `done` ones; nullopt
// before the first is done and after the last.
std::optional<Duration> TimeLeft(size_t done, size_t total, Duration elapsed);

// `elapsed`, and TimeLeft when there is one.
std::string ProgressClock(size_t done, size_t total, Duration elapsed);

// The same as fields of a machine-readable progress event: elapsed_s, and eta_s (null when
// there is no estimate yet).
nlohmann::json ProgressClockJson(size_t done, size_t total, Duration elapsed);

}  // namespace adaexplore
