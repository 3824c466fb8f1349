#pragma once

// Monotonic time and deadlines. The poll loop's timeout is always the earliest deadline.

#include <chrono>
#include <optional>

namespace adaexplore {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;
using Duration = Clock::duration;

inline double ToSeconds(Duration d) { return std::chrono::duration<double>(d).count(); }

inline Duration Seconds(double s) {
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(s));
}

// The earlier of two optional deadlines.
inline std::optional<TimePoint> Earliest(std::optional<TimePoint> a, std::optional<TimePoint> b) {
  if (!a) {
    return b;
  }
  if (!b) {
    return a;
  }
  return *a < *b ? a : b;
}

}  // namespace adaexplore
