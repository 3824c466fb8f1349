#include "sys/process.h"

// Spawning uses posix_spawn rather than fork+exec: it is safe in a process with threads (the LLM
// pool) and cheap for a parent with a large address space. The child gets its own process group
// (POSIX_SPAWN_SETPGROUP with 0) so one kill(-pgid) reaches everything it starts; its signal mask
// is cleared because the poll loop blocks SIGINT/SIGTERM/SIGCHLD in the parent.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <thread>

#include "sys/errno_status.h"
#include "sys/unique_fd.h"

extern char** environ;

namespace adaexplore {
namespace {

constexpr auto kReapPollInterval = std::chrono::milliseconds(10);

std::vector<std::string> BuildEnvironment(const SpawnOptions& options) {
  std::map<std::string, std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string item(*entry);
    const size_t eq = item.find('=');
    if (eq != std::string::npos) {
      env[item.substr(0, eq)] = item.substr(eq + 1);
    }
  }
  for (const std::string& name : options.env_unset) {
    env.erase(name);
  }
  for (const auto& [name, value] : options.env_set) {
    env[name] = value;
  }
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [name, value] : env) {
    out.push_back(name + "=" + value);
  }
  return out;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings) {
    out.push_back(s.data());
  }
  out.push_back(nullptr);
  return out;
}

// posix_spawn_file_actions and attributes as RAII objects.
struct FileActions {
  posix_spawn_file_actions_t actions;
  FileActions() { posix_spawn_file_actions_init(&actions); }
  ~FileActions() { posix_spawn_file_actions_destroy(&actions); }
};
struct SpawnAttributes {
  posix_spawnattr_t attr;
  SpawnAttributes() { posix_spawnattr_init(&attr); }
  ~SpawnAttributes() { posix_spawnattr_destroy(&attr); }
};

ExitStatus DecodeWaitStatus(int status) {
  ExitStatus out;
  if (WIFEXITED(status)) {
    out.code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    out.signal = WTERMSIG(status);
  }
  return out;
}

}  // namespace

std::string ExitStatus::ToString() const {
  if (signal != 0) {
    const char* name = sigabbrev_np(signal);
    return std::string("killed by SIG") + (name != nullptr ? name : std::to_string(signal));
  }
  return "exit code " + std::to_string(code);
}

void SignalGroup(pid_t pgid, int signal) {
  if (pgid > 0) {
    ::kill(-pgid, signal);  // ESRCH (group gone) is the normal case after a clean exit.
  }
}

Result<Process> Process::Spawn(const SpawnOptions& options) {
  if (options.argv.empty()) {
    return InvalidArgument("spawn: empty argv");
  }
  FileActions files;
  SpawnAttributes attributes;

  // A parent fd that already has the child's number would keep FD_CLOEXEC through dup2 (a no-op);
  // duplicate such fds first so every mapping is a real dup2.
  std::vector<UniqueFd> temporaries;
  for (const auto& [parent_fd, child_fd] : options.fd_map) {
    int source = parent_fd;
    if (parent_fd == child_fd) {
      const int copy = ::fcntl(parent_fd, F_DUPFD_CLOEXEC, 100);
      if (copy < 0) {
        return ErrnoStatus("fcntl(F_DUPFD_CLOEXEC)");
      }
      temporaries.emplace_back(copy);
      source = copy;
    }
    posix_spawn_file_actions_adddup2(&files.actions, source, child_fd);
  }
  posix_spawn_file_actions_addopen(&files.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (!options.stdout_path.empty()) {
    posix_spawn_file_actions_addopen(&files.actions, STDOUT_FILENO, options.stdout_path.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
  }
  if (!options.stderr_path.empty()) {
    if (options.stderr_path == options.stdout_path) {
      posix_spawn_file_actions_adddup2(&files.actions, STDOUT_FILENO, STDERR_FILENO);
    } else {
      posix_spawn_file_actions_addopen(&files.actions, STDERR_FILENO, options.stderr_path.c_str(),
                                       O_WRONLY | O_CREAT | O_APPEND, 0644);
    }
  }
  if (!options.cwd.empty()) {
    posix_spawn_file_actions_addchdir_np(&files.actions, options.cwd.c_str());
  }

  sigset_t empty_mask;
  sigemptyset(&empty_mask);
  sigset_t default_signals;
  sigemptyset(&default_signals);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGQUIT}) {
    sigaddset(&default_signals, sig);
  }
  posix_spawnattr_setflags(&attributes.attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attributes.attr, 0);
  posix_spawnattr_setsigmask(&attributes.attr, &empty_mask);
  posix_spawnattr_setsigdefault(&attributes.attr, &default_signals);

  std::vector<std::string> argv_strings = options.argv;
  std::vector<std::string> env_strings = BuildEnvironment(options);
  std::vector<char*> argv = CStrings(argv_strings);
  std::vector<char*> envp = CStrings(env_strings);

  pid_t pid = -1;
  const int error =
      ::posix_spawnp(&pid, argv[0], &files.actions, &attributes.attr, argv.data(), envp.data());
  if (error != 0) {
    return ErrnoStatus("spawning " + options.argv[0], error);
  }
  return Process(pid);
}

Process::Process(Process&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), exit_status_(other.exit_status_) {}

Process& Process::operator=(Process&& other) noexcept {
  if (this != &other) {
    Terminate();
    pid_ = std::exchange(other.pid_, -1);
    exit_status_ = other.exit_status_;
  }
  return *this;
}

Process::~Process() { Terminate(); }

const std::optional<ExitStatus>& Process::Poll() {
  if (pid_ > 0 && !exit_status_) {
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exit_status_ = DecodeWaitStatus(status);
    }
  }
  return exit_status_;
}

bool Process::Wait(Duration timeout) {
  const TimePoint deadline = Clock::now() + timeout;
  while (!Poll() && Clock::now() < deadline) {
    std::this_thread::sleep_for(kReapPollInterval);
  }
  return exit_status_.has_value();
}

void Process::Terminate(Duration grace) {
  if (pid_ <= 0) {
    return;
  }
  if (!Poll()) {
    SignalGroup(pid_, SIGTERM);
    Wait(grace);
  }
  // Whatever is left of the group (the leader, or grandchildren that ignored SIGTERM) goes now.
  SignalGroup(pid_, SIGKILL);
  if (!exit_status_) {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    exit_status_ = DecodeWaitStatus(status);
  }
  pid_ = -1;
}

}  // namespace adaexplore
