#include "ui/progress_clock.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>

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

std::optional<Duration> TimeLeft(size_t done, size_t total, Duration elapsed) {
  if (done == 0 || done >= total) {
    return std::nullopt;
  }
  return elapsed / static_cast<int64_t>(done) * static_cast<int64_t>(total - done);
}

std::string ProgressClock(size_t done, size_t total, Duration elapsed) {
  std::string text = ShortDuration(elapsed);
  if (const std::optional<Duration> left = TimeLeft(done, total, elapsed)) {
    text += " · about " + ShortDuration(*left) + " left";
  }
  return text;
}

nlohmann::json ProgressClockJson(size_t done, size_t total, Duration elapsed) {
  const auto seconds = [](Duration d) {
    return std::floor(std::chrono::duration<double>(d).count() * 10) / 10;  // As the text: down.
  };
  const std::optional<Duration> left = TimeLeft(done, total, elapsed);
  return {{"elapsed_s", seconds(elapsed)},
          {"eta_s", left ? nlohmann::json(seconds(*left)) : nlohmann::json(nullptr)}};
}

}  // namespace adaexplore
