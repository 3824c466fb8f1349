#pragma once

// Worker: one long-lived Python evaluation worker (a zygote, see python/adaexplore_worker), seen
// from C++. It owns the process and the protocol socket; it does not own scheduling, which is the
// pool's. Not thread-safe: owned by the thread that runs the pool's poll loop.
//
// States:   kStarting --hello ok--> kReady --EOF/exit--> kDead
//              |  \--bad hello--> kFailed (never restarted: the setup is wrong)
//              \--EOF--> kDead

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/log.h"
#include "sys/line_reader.h"
#include "sys/process.h"
#include "sys/unique_fd.h"
#include "workers/protocol.h"

namespace adaexplore {

struct WorkerSpec {
  std::string python = "python3";            // The interpreter that has torch and triton.
  std::string python_path;                   // Directory holding the worker package.
  std::string module = "adaexplore_worker";  // Run as `python -m <module>`.
  DeviceKind device_kind = DeviceKind::kCpu;
  std::string visible_devices;  // CUDA_VISIBLE_DEVICES for this worker ("" for CPU).
  int slots = 1;                // Evaluations at once (they share the device; timing never).
  int ahead =
      0;  // Jobs beyond the slots whose task phases (CUDA, references) run before one frees.
  std::string scratch_dir;        // The worker's own directory: job files, its log.
  double reference_cache_mb = 0;  // Its reference cache (host memory); 0: off.
  double lock_patience_s = 0;     // WorkerSettings::lock_patience_s; 0: never paused.
  int judge_threads = 4;          // WorkerSettings::judge_threads.
  bool sandbox = false;           // Each candidate in its own sandbox (docs/harness.md).
  bool require_sandbox = false;   // Fail at hello unless every protection is in force.
  std::vector<std::pair<std::string, std::string>> env;  // Extra environment.
  double startup_timeout_s = 300;  // Importing torch can be slow on a cold disk.
  std::string label;               // "gpu0", "cpu": for logs.
};

class Worker {
 public:
  enum class State { kStarting, kReady, kFailed, kDead };

  // Spawns the worker; the hello arrives later through Read().
  static Result<std::unique_ptr<Worker>> Start(const WorkerSpec& spec, Logger logger);

  ~Worker() { Kill(); }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  int fd() const { return socket_.get(); }
  State state() const { return state_; }
  const WorkerSpec& spec() const { return spec_; }
  const WorkerHello& hello() const { return hello_; }
  const std::string& failure() const { return failure_; }
  // Why the worker is stopping when something outside it (not a candidate) sent it a stop
  // signal, as it said before exiting; empty otherwise. Its jobs are then not the candidates'.
  const std::string& stopped_from_outside() const { return stopped_from_outside_; }
  TimePoint started_at() const { return started_at_; }
  std::string log_path() const { return spec_.scratch_dir + "/worker.log"; }

  // Reads what the socket holds and decodes it. A valid hello moves kStarting to kReady, a bad
  // one to kFailed; EOF moves to kDead. Malformed lines are logged and skipped.
  std::vector<WorkerEvent> Read();

  // Sends one message; failure means the worker is gone (the caller treats it as dead).
  Status Send(const nlohmann::json& message);

  // Kills the zygote's group and the groups of the evaluation children it reported, and reaps.
  void Kill();
  // Marks the worker failed with `reason` and kills it.
  void Fail(std::string reason);

 private:
  Worker(WorkerSpec spec, Process process, UniqueFd socket, Logger logger);

  WorkerSpec spec_;
  Process process_;
  UniqueFd socket_;
  Logger logger_;
  LineReader reader_;
  State state_ = State::kStarting;
  WorkerHello hello_;
  std::string failure_;
  std::string stopped_from_outside_;
  TimePoint started_at_;
  std::set<pid_t> children_;  // Evaluation children (each its own process group).
  std::map<std::string, pid_t> child_of_job_;
};

std::string_view WorkerStateName(Worker::State state);

}  // namespace adaexplore
