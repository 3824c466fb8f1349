#include "sys/signals.h"

#include <atomic>

namespace adaexplore {
namespace {

std::atomic<int> g_received{0};

void OnInterrupt(int signal) {
  int expected = 0;
  g_received.compare_exchange_strong(expected, signal);
}

}  // namespace

InterruptGuard::InterruptGuard() {
  g_received = 0;
  struct sigaction action {};
  action.sa_handler = OnInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &old_int_);
  sigaction(SIGTERM, &action, &old_term_);
  sigaction(SIGHUP, &action, &old_hup_);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, &old_pipe_);

  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &block, &old_mask_);
  pthread_sigmask(SIG_SETMASK, nullptr, &poll_mask_);
  sigdelset(&poll_mask_, SIGINT);
  sigdelset(&poll_mask_, SIGTERM);
  sigdelset(&poll_mask_, SIGHUP);
}

InterruptGuard::~InterruptGuard() {
  pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  sigaction(SIGHUP, &old_hup_, nullptr);
  sigaction(SIGPIPE, &old_pipe_, nullptr);
}

int InterruptGuard::received() { return g_received.load(); }

void InterruptGuard::TEST_Raise(int signal) { OnInterrupt(signal); }

}  // namespace adaexplore
