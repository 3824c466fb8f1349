#pragma once

// Where evaluations run and how each worker process spends its host, declared once as a settings
// table (core/setting.h): [workers] in adaexplore.toml, and the flags (--python, --device, --gpus,
// --slots, --prepare-ahead, --reference-cache-mb, --judge-threads, --lock-patience) of every
// command that evaluates (eval, run, bench, adapt, mcp, worker and the benchmark programs), with
// their checks and the settings table of docs/configuration.md derived from it. None of them
// changes a verdict, so none enters the result cache's fingerprint or a run's stored settings: a
// resumed run takes this machine's. Which GPUs are visible is decided when the workers are
// planned (app/devices.h), not here.
//
//   WorkerSettings workers;
//   RETURN_IF_ERROR(ApplyWorkerSettings({{"gpus", {0, 2}}, {"slots", 3}}, workers));

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/setting.h"

namespace adaexplore {

// The most evaluations one device runs at once.
inline constexpr int kMaxSlots = 1024;

struct WorkerSettings {
  std::string python;           // Empty: ADAEXPLORE_PYTHON, then the project's .venv.
  std::string device = "auto";  // "auto": GPUs if any are visible, else the CPU.
  std::vector<int> gpus;        // Empty: every visible GPU.
  int slots = 0;                // Evaluations per device at once; 0: 2 per GPU, 1-2 on CPU.
  // Candidates per GPU worker whose task phases (CUDA start-up, loading the task, its reference
  // outputs) run while its slots are taken, so each starts its own phases when a slot frees.
  int prepare_ahead = 2;
  // Host memory per worker for reference outputs that candidates of one task share (the
  // worker's reference cache: sealed memory files, refcache.py); 0: every candidate makes its
  // own.
  double reference_cache_mb = 4096;
  // Host threads of each judge (python/adaexplore_worker/correctness/judge.py), which compares a
  // candidate's outputs with the sealed references beside the next candidates' evaluations, at a
  // lower priority. On an H100 a judge on every core slowed the next candidates' host phases.
  int judge_threads = 4;
  // A check (loading, correctness runs: the GPU lock held shared) that has held the lock this
  // long while a timing has waited as long is paused (SIGSTOP) until no timing waits, its limit
  // moved by the pause (at most its own limit again); later timings pause it at once. So a hung
  // or very slow check costs its own slot, not every other candidate's timing. 0: never.
  double lock_patience_s = 2;
};

// python, device, gpus, slots, prepare_ahead, reference_cache_mb, judge_threads, lock_patience_s.
const std::vector<Setting<WorkerSettings>>& WorkerSettingTable();

// Those present in `settings`, all or none: an unknown name, a wrong type or a value out of
// range (a negative GPU index, slots outside [1, kMaxSlots]) is an error naming the setting.
Status ApplyWorkerSettings(const nlohmann::json& settings, WorkerSettings& workers);

// `settings` (an object) without the names of this table: a run stored before prepare_ahead,
// reference_cache_mb, judge_threads and lock_patience_s moved here from the evaluation settings
// kept them among those; they never changed a verdict, and this machine's hold now.
nlohmann::json WithoutWorkerSettings(nlohmann::json settings);

}  // namespace adaexplore
