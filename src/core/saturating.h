#pragma once

// Sums that stop at the ends of int64_t instead of overflowing. Counts that come from outside
// (an LLM endpoint's token usage, a run database written by an earlier build) can be anything;
// adding two of them must give a large number, never undefined behaviour or a negative total.

#include <cstdint>
#include <limits>

namespace adaexplore {

// a + b, or the nearest end of int64_t when the exact sum does not fit.
constexpr int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) {
    return sum;
  }
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

// `value` rounded toward zero, or the nearest end of int64_t when it lies beyond one (NaN: 0).
// For sums SQLite computes in floating point (total()), which never fail.
constexpr int64_t SaturatingInt(double value) {
  // 2^63 exactly: every double below it converts without overflow.
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (value != value) {
    return 0;
  }
  if (value >= kTwoTo63) {
    return std::numeric_limits<int64_t>::max();
  }
  if (value <= -kTwoTo63) {
    return std::numeric_limits<int64_t>::min();
  }
  return static_cast<int64_t>(value);
}

}  // namespace adaexplore
