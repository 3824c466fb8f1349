#include "llm/retry.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace adaexplore {

double BackoffSeconds(const RetryPolicy& policy, int next_attempt,
                      std::optional<double> retry_after_s, std::mt19937_64& random) {
  const int exponent = std::max(0, next_attempt - 2);
  double wait = std::min(policy.max_backoff_s,
                         policy.initial_backoff_s * std::pow(2.0, std::min(exponent, 30)));
  std::uniform_real_distribution<double> spread(1.0 - policy.jitter, 1.0);
  wait *= spread(random);
  if (retry_after_s) {
    // The server said when; add a little spread so many waiting requests do not return at once.
    std::uniform_real_distribution<double> extra(0.0, 0.1);
    double asked = std::min(std::max(0.0, *retry_after_s), policy.max_retry_after_s);
    wait = asked * (1.0 + extra(random));
  }
  return wait;
}

std::optional<double> ParseRetryAfter(std::string_view value, double now_epoch_s) {
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front()))) {
    value.remove_prefix(1);
  }
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) {
    value.remove_suffix(1);
  }
  if (value.empty()) {
    return std::nullopt;
  }
  double seconds = 0;
  auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (error == std::errc() && end == value.data() + value.size()) {
    return seconds < 0 ? std::nullopt : std::optional<double>(seconds);
  }
  // An HTTP date; curl parses every format the RFC allows.
  time_t when = curl_getdate(std::string(value).c_str(), nullptr);
  if (when < 0) {
    return std::nullopt;
  }
  return std::max(0.0, static_cast<double>(when) - now_epoch_s);
}

}  // namespace adaexplore
