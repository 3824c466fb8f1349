#pragma once

// The time part of a progress line: how long so far and, from the mean time per finished item,
// about how long is left ("1m30s · about 4m30s left"). Rough by nature: items differ.

#include <cstddef>
#include <string>

#include "core/clock.h"

namespace adaexplore {

// "45s", "3m05s", "1h02m".
std::string ShortDuration(Duration d);

// `elapsed`, and the estimate for `total - done` more items once one is done.
std::string ProgressClock(size_t done, size_t total, Duration elapsed);

}  // namespace adaexplore
