#pragma once

// The poll loop's one wait: ppoll over a set of descriptors, with the interrupt signals let
// through while it waits (signals.h) and one error policy for every caller. An interrupted or
// timed-out wait is not an error (the caller looks at InterruptGuard::received() and its own
// deadlines); any other failure is a Status, so a loop never spins on a failing ppoll.

#include <poll.h>

#include <span>

#include "core/clock.h"
#include "core/result.h"
#include "sys/signals.h"

namespace adaexplore {

// Waits until one of `fds` is ready, `timeout` passes (clamped at zero: a poll that does not
// block), or a signal the guard lets through arrives. Returns how many descriptors have events
// (their revents filled; 0 when it timed out or was interrupted).
Result<int> PollFor(std::span<pollfd> fds, Duration timeout, const InterruptGuard* guard);

}  // namespace adaexplore
