#include "sys/poll_for.h"

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "sys/errno_status.h"

namespace adaexplore {

Result<int> PollFor(std::span<pollfd> fds, Duration timeout, const InterruptGuard* guard) {
  const auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::max(Duration::zero(), timeout))
          .count();
  constexpr int64_t kPerSecond = 1'000'000'000;
  const timespec wait{.tv_sec = static_cast<time_t>(ns / kPerSecond),
                      .tv_nsec = static_cast<long>(ns % kPerSecond)};
  const int ready =
      ::ppoll(fds.data(), fds.size(), &wait, guard != nullptr ? guard->poll_mask() : nullptr);
  if (ready >= 0) {
    return ready;
  }
  if (errno == EINTR) {
    return 0;
  }
  return ErrnoStatus("ppoll over " + std::to_string(fds.size()) + " descriptors");
}

}  // namespace adaexplore
