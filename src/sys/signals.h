#pragma once

// Signal discipline for the poll loop: SIGINT, SIGTERM and SIGHUP are blocked everywhere except
// inside ppoll, so they can only arrive while the loop waits; their handler records the signal and
// ppoll returns EINTR. SIGPIPE is ignored (a dead worker shows up as EPIPE on write instead).

#include <signal.h>

namespace adaexplore {

// Installs the handlers and blocks the signals in the calling thread for its lifetime; restores
// the previous mask and handlers when destroyed. Create one on the thread that runs the loop,
// before starting any other thread (threads inherit the blocked mask).
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // The mask to pass to ppoll: the blocked mask minus the interrupt signals.
  const sigset_t* poll_mask() const { return &poll_mask_; }

  // The first interrupt signal received since construction, or 0.
  static int received();
  // Test hook: behave as if `signal` had arrived.
  static void TEST_Raise(int signal);

 private:
  sigset_t old_mask_;
  sigset_t poll_mask_;
  struct sigaction old_int_, old_term_, old_hup_, old_pipe_;
};

}  // namespace adaexplore
