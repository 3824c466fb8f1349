#pragma once

// LineReader splits bytes read from a non-blocking fd into '\n'-terminated lines. A line longer
// than the cap is a protocol error (a peer cannot make us buffer without bound).

#include <string>
#include <vector>

#include "core/result.h"

namespace adaexplore {

class LineReader {
 public:
  static constexpr size_t kDefaultMaxLine = 64 << 20;

  explicit LineReader(size_t max_line = kDefaultMaxLine) : max_line_(max_line) {}

  enum class State { kOpen, kEof };

  // Reads what is available from `fd` (non-blocking) and appends complete lines to `lines`.
  // Returns kEof once the peer closed its end; an unterminated last line is then dropped and
  // reported by partial().
  Result<State> ReadAvailable(int fd, std::vector<std::string>& lines);

  // Feeds bytes directly (tests, and the fake transport).
  Status Feed(std::string_view bytes, std::vector<std::string>& lines);

  const std::string& partial() const { return buffer_; }

 private:
  size_t max_line_;
  std::string buffer_;
};

// Writes all of `data` to a (possibly non-blocking) socket, waiting up to `timeout_ms` in total
// for the peer to drain it. EPIPE and a timeout are errors; SIGPIPE is never raised.
Status SendAll(int fd, std::string_view data, int timeout_ms);

}  // namespace adaexplore
