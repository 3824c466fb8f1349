#pragma once

// Baselines: a task's own Model timed alone, eager and under torch.compile, once per task, GPU
// model, software and timing settings. Candidates are still judged against the reference timed
// beside them (interleaved, see profile.h); a baseline is what a suite's report compares the best
// kernels with (how they fare against torch.compile), and it is cached so that a suite is not
// re-timed needlessly. Its key names everything the figures depend on: the task's source, the
// timing part of the profile, the GPU model, the versions of Python, torch and Triton, and the
// worker's own sources (its timer); a change to any of them measures again.
//
// Example:
//   ASSIGN_OR_RETURN(std::vector<Baseline> b, evaluator->Baselines(tasks, true, &guard));
//   if (b[0].eager) fmt::print("{} ms", b[0].eager_ms());

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "eval/profile.h"
#include "eval/verdict.h"
#include "task/source_file.h"
#include "workers/protocol.h"

namespace adaexplore {

struct Baseline {
  std::string task;
  std::string task_sha256;
  std::string key;
  std::string device;    // GPU model ("NVIDIA H200") or the CPU's name.
  std::string software;  // WorkerHello::Fingerprint() and the Python version.
  std::string profile;
  Statistic statistic = Statistic::kMedian;  // Which figure of the stats eager_ms() reports.
  std::optional<TimingStats> eager;          // Unset when the task failed (see error).
  std::optional<TimingStats> compiled;       // Unset when not asked for or torch.compile failed.
  std::string error;                         // Why eager is missing.
  std::vector<std::string> notes;            // The worker's notes (a torch.compile failure).
  bool cached = false;                       // Answered from the cache, not measured now.
  int64_t measured_at = 0;                   // Unix seconds.

  std::optional<double> eager_ms() const;
  std::optional<double> compiled_ms() const;
};

nlohmann::json ToJson(const Baseline& baseline);
Baseline BaselineFromJson(const nlohmann::json& j);

// The content key of a baseline.
std::string BaselineKey(const std::string& task_sha256, const EvalProfile& profile,
                        bool with_compile, const WorkerHello& hello);

// The "baseline" job (an eval message with an empty candidate and options.baseline), without id,
// nonce and timeout.
nlohmann::json BaselineJob(const SourceFile& task, const EvalProfile& profile, bool with_compile,
                           DeviceKind device_kind);

// Reads a worker's facts for a baseline job into `baseline` (figures, error, notes).
void ReadBaselineFacts(const nlohmann::json& facts, Baseline& baseline);

}  // namespace adaexplore
