#include "ui/progress_clock.h"

#include <fmt/format.h>

#include <chrono>

namespace adaexplore {

std::string ShortDuration(Duration d) {
  const auto s = std::chrono::duration_cast<std::chrono::seconds>(d).count();
  if (s < 60) {
    return fmt::format("{}s", s);
  }
  if (s < 3600) {
    return fmt::format("{}m{:02}s", s / 60, s % 60);
  }
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

std::string ProgressClock(size_t done, size_t total, Duration elapsed) {
  std::string text = ShortDuration(elapsed);
  if (done > 0 && done < total) {
    const Duration left = elapsed / static_cast<int64_t>(done) * static_cast<int64_t>(total - done);
    text += " · about " + ShortDuration(left) + " left";
  }
  return text;
}

}  // namespace adaexplore
