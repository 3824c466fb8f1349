#pragma once

// Process: a child started with posix_spawn into a new process group, from a SpawnOptions struct
// (argv without a shell, environment changes, fds mapped into the child, stdout/stderr files).
// Destroying a Process kills its whole group (SIGTERM, a grace period, SIGKILL) and reaps the
// leader, so no child outlives the object that owns it. Not thread-safe; owned by the poll loop.

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/result.h"

namespace adaexplore {

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH when it has no slash.
  std::vector<std::pair<std::string, std::string>> env_set;  // Added to or replacing our env.
  std::vector<std::string> env_unset;
  std::string cwd;  // Empty: inherit.
  // (parent fd, child fd): the parent's fd appears in the child under the child's number.
  std::vector<std::pair<int, int>> fd_map;
  std::string stdout_path;  // Empty: inherit ours. Otherwise appended to.
  std::string stderr_path;  // Empty: inherit ours. Same path as stdout: one shared file.
};

struct ExitStatus {
  int code = -1;                 // Exit code, when the process exited.
  int signal = 0;                // Terminating signal, when it was killed.
  std::string ToString() const;  // "exit code 3", "killed by SIGSEGV".
};

class Process {
 public:
  static constexpr double kDefaultGraceSeconds = 2.0;

  static Result<Process> Spawn(const SpawnOptions& options);

  Process(Process&& other) noexcept;
  Process& operator=(Process&& other) noexcept;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process();

  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0 && !exit_status_; }
  const std::optional<ExitStatus>& exit_status() const { return exit_status_; }

  // Reaps the leader if it has exited; never blocks.
  const std::optional<ExitStatus>& Poll();

  // Waits up to `timeout` for the leader to exit; true if it did.
  bool Wait(Duration timeout);

  // SIGTERM to the group, up to `grace` for the leader to exit, then SIGKILL to the group; reaps
  // the leader. Safe to call more than once.
  void Terminate(Duration grace = Seconds(kDefaultGraceSeconds));

 private:
  explicit Process(pid_t pid) : pid_(pid) {}

  pid_t pid_ = -1;
  std::optional<ExitStatus> exit_status_;
};

// Sends `signal` to process group `pgid`; a group that no longer exists is not an error.
void SignalGroup(pid_t pgid, int signal);

}  // namespace adaexplore
