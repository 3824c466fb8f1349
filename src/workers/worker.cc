#include "workers/worker.h"

#include <fmt/ranges.h>
#include <signal.h>

#include <cstdlib>
#include <map>

#include "core/json_text.h"
#include "core/secrets.h"
#include "sys/fs.h"
#include "workers/containment.h"

namespace adaexplore {
namespace {

constexpr int kProtocolFd = 3;
constexpr int kSendTimeoutMs = 10'000;
constexpr double kKillGraceSeconds = 1.0;

}  // namespace

std::string_view WorkerStateName(Worker::State state) {
  switch (state) {
    case Worker::State::kStarting:
      return "starting";
    case Worker::State::kReady:
      return "ready";
    case Worker::State::kFailed:
      return "failed";
    case Worker::State::kDead:
      return "dead";
  }
  return "?";
}

Worker::Worker(WorkerSpec spec, Process process, UniqueFd socket, Logger logger)
    : spec_(std::move(spec)),
      process_(std::move(process)),
      socket_(std::move(socket)),
      logger_(std::move(logger)),
      started_at_(Clock::now()) {}

Result<std::unique_ptr<Worker>> Worker::Start(const WorkerSpec& spec, Logger logger) {
  RETURN_IF_ERROR(MakeDirectories(spec.scratch_dir));
  ASSIGN_OR_RETURN(auto sockets, SocketPair());
  SpawnOptions options;
  options.argv = {spec.python, "-u",
                  "-m",        spec.module,
                  "--fd",      std::to_string(kProtocolFd),
                  "--device",  std::string(EnumName(spec.device_kind)),
                  "--scratch", spec.scratch_dir,
                  "--slots",   std::to_string(spec.slots),
                  "--ahead",   std::to_string(spec.ahead)};
  if (spec.reference_cache_mb > 0) {
    options.argv.emplace_back("--reference-cache-mb");
    options.argv.push_back(fmt::format("{:g}", spec.reference_cache_mb));
  }
  if (spec.lock_patience_s > 0) {
    options.argv.emplace_back("--lock-patience");
    options.argv.push_back(fmt::format("{:g}", spec.lock_patience_s));
  }
  options.argv.emplace_back("--judge-threads");
  options.argv.push_back(std::to_string(spec.judge_threads));
  if (spec.sandbox) {
    options.argv.emplace_back("--sandbox");
  }
  if (spec.require_sandbox) {
    options.argv.emplace_back("--require-sandbox");
  }
  options.fd_map = {{sockets.second.get(), kProtocolFd}};
  options.stdout_path = spec.scratch_dir + "/worker.log";
  options.stderr_path = options.stdout_path;
  options.env_set = spec.env;
  // The worker's package first; the user's own path after it (a package installed from source,
  // such as the expert baseline's flashinfer).
  const char* user_path = std::getenv("PYTHONPATH");
  options.env_set.emplace_back("PYTHONPATH", user_path != nullptr && *user_path != '\0'
                                                 ? spec.python_path + ":" + user_path
                                                 : spec.python_path);
  options.env_set.emplace_back("PYTHONDONTWRITEBYTECODE", "1");
  if (spec.device_kind == DeviceKind::kCuda) {
    options.env_set.emplace_back("CUDA_VISIBLE_DEVICES", spec.visible_devices);
  } else {
    options.env_set.emplace_back("TRITON_INTERPRET", "1");
    options.env_set.emplace_back("CUDA_VISIBLE_DEVICES", "");
  }
  // Only an allowlist of our environment reaches candidate code (the worker forks every
  // candidate from this environment): no LLM key, no other secret whatever its name.
  options.env_unset = VariablesWithheldFromCandidates();
  Result<Process> process = Process::Spawn(options);
  if (!process.ok()) {
    return process.status().WithContext("starting worker " + spec.label);
  }
  sockets.second.Reset();
  RETURN_IF_ERROR(SetNonBlocking(sockets.first.get()));
  logger->debug("worker {} started (pid {}, {} slot(s))", spec.label, process->pid(), spec.slots);
  return std::unique_ptr<Worker>(
      new Worker(spec, std::move(*process), std::move(sockets.first), std::move(logger)));
}

std::vector<WorkerEvent> Worker::Read() {
  std::vector<WorkerEvent> events;
  if (state_ == State::kDead || state_ == State::kFailed) {
    return events;
  }
  std::vector<std::string> lines;
  Result<LineReader::State> read = reader_.ReadAvailable(socket_.get(), lines);
  for (const std::string& line : lines) {
    Result<WorkerEvent> event = ParseWorkerLine(line);
    if (!event.ok()) {
      logger_->warn("worker {}: skipping a bad line: {}", spec_.label, event.status().message());
      continue;
    }
    if (event->kind == WorkerEvent::Kind::kHello) {
      if (state_ != State::kStarting) {
        logger_->warn("worker {}: a second hello, ignored", spec_.label);
        continue;
      }
      Result<WorkerHello> hello = ParseHello(event->body);
      if (!hello.ok()) {
        Fail(hello.status().message());
        return events;
      }
      hello_ = *hello;
      if (std::vector<std::string> missing = MissingProtections(hello_.containment);
          spec_.sandbox && !missing.empty()) {
        if (spec_.require_sandbox) {
          Fail(
              fmt::format("the candidate sandbox is not complete here: {}; {}. Or evaluate "
                          "without them: --no-require-sandbox (each result says what was "
                          "missing)",
                          fmt::join(missing, "; "), kSandboxInstallHint));
          return events;
        }
        logger_->warn("worker {}: --no-require-sandbox: candidates run without {}", spec_.label,
                      fmt::join(missing, "; "));
      }
      state_ = State::kReady;
      logger_->info("worker {} ready: {} ({}), torch {}, triton {}, {} slot(s), import {:.1f} s",
                    spec_.label, hello_.device_name, EnumName(hello_.device_kind), hello_.torch,
                    hello_.triton, hello_.slots, hello_.import_s);
    } else if (event->kind == WorkerEvent::Kind::kStarted) {
      const pid_t pid = event->body.value("pid", 0);
      if (pid > 0) {
        children_.insert(pid);
        child_of_job_[event->id] = pid;
      }
    } else if (event->kind == WorkerEvent::Kind::kStopping) {
      stopped_from_outside_ = event->body.value("reason", "a stop signal from outside");
      logger_->warn("worker {} is stopping: {}", spec_.label, stopped_from_outside_);
      continue;
    } else if (event->kind == WorkerEvent::Kind::kResult) {
      // Nothing of our environment that candidates are denied leaves here in what they wrote.
      RedactSecretsInJson(event->body, WithheldValues());
      auto it = child_of_job_.find(event->id);
      if (it != child_of_job_.end()) {
        children_.erase(it->second);
        child_of_job_.erase(it);
      }
    }
    events.push_back(std::move(*event));
  }
  if (!read.ok() || *read == LineReader::State::kEof) {
    if (!read.ok()) {
      logger_->warn("worker {}: {}", spec_.label, read.status().message());
    }
    if (state_ == State::kStarting) {
      // A worker that dies before its hello has a setup problem; restarting will not fix it.
      Fail("exited before saying hello; see " + log_path());
      return events;
    }
    state_ = State::kDead;
    Kill();
  }
  return events;
}

Status Worker::Send(const nlohmann::json& message) {
  if (state_ != State::kReady) {
    return Unavailable("worker " + spec_.label + " is " + std::string(WorkerStateName(state_)));
  }
  return SendAll(socket_.get(), JsonText(message) + "\n", kSendTimeoutMs);
}

void Worker::Kill() {
  for (pid_t child : children_) {
    SignalGroup(child, SIGKILL);
  }
  children_.clear();
  child_of_job_.clear();
  process_.Terminate(Seconds(kKillGraceSeconds));
  if (state_ == State::kReady || state_ == State::kStarting) {
    state_ = State::kDead;
  }
}

void Worker::Fail(std::string reason) {
  failure_ = std::move(reason);
  logger_->error("worker {} failed: {}", spec_.label, failure_);
  state_ = State::kFailed;
  Kill();
}

}  // namespace adaexplore
