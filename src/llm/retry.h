#pragma once

// When to try a failed LLM call again. Capped exponential backoff with jitter, so a burst of
// 429s from many requests in flight does not come back as a synchronised burst; a server's
// Retry-After wins over our own guess (up to a cap, so a confused server cannot park a run).

#include <optional>
#include <random>
#include <string_view>

namespace adaexplore {

struct RetryPolicy {
  int max_attempts = 8;            // First try included. Default: about 4 minutes of trying.
  double initial_backoff_s = 1.0;  // Before the second attempt, before jitter.
  double max_backoff_s = 60.0;     // The exponential growth stops here.
  double max_retry_after_s = 300;  // Longer Retry-After values are cut to this.
  double jitter = 0.5;             // The wait is drawn from [(1 - jitter) * w, w].
};

// Seconds to wait before attempt `next_attempt` (2 for the first retry). `retry_after_s` is the
// server's Retry-After, when it sent one.
double BackoffSeconds(const RetryPolicy& policy, int next_attempt,
                      std::optional<double> retry_after_s, std::mt19937_64& random);

// A Retry-After header value: delta-seconds ("120") or an HTTP date; seconds from `now_epoch_s`.
// nullopt when it is neither.
std::optional<double> ParseRetryAfter(std::string_view value, double now_epoch_s);

}  // namespace adaexplore
