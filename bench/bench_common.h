#pragma once

// Shared by the benchmark programs: flag parsing into a Config and the requests, and small
// formatting helpers. Benchmarks print a short table last and can write their figures as JSON.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/run_setup.h"
#include "cli/setting_flags.h"
#include "config/config.h"
#include "eval/evaluator.h"
#include "sys/fs.h"
#include "sys/signals.h"

namespace adaexplore::bench {

struct BenchFlags {
  RequestSources sources;
  SettingFlags
      workers;  // --python, --device, --gpus, --slots, --prepare-ahead... (workers/settings.h).
  int timed_runs = 0;
  std::string json_out;
  std::string log_level = "warn";
};

void AddCommonFlags(CLI::App& app, BenchFlags& flags);

// Everything a benchmark needs before it evaluates: configuration (strict profile, cache off: a
// benchmark measures work, not the cache), logger, the candidates, a scratch folder, workers.
struct BenchSetup {
  Config config;
  Logger logger;
  std::vector<EvalRequest> requests;
  std::optional<TempDir> scratch;
  std::vector<WorkerSpec> workers;

  // Starts an evaluator over `workers` with the setup's profile.
  Result<std::unique_ptr<Evaluator>> StartEvaluator(const InterruptGuard& guard) const;
};
Result<BenchSetup> SetUp(const BenchFlags& flags);

// Runs `main` and turns an error into a message on stderr and exit status 1.
int RunMain(const char* name, Result<int> (*main)(int, char**), int argc, char** argv);

// Writes `figures` to flags.json_out when set.
Status WriteJson(const BenchFlags& flags, const nlohmann::json& figures);

// Samples' mean and coefficient of variation.
struct Spread {
  double mean = 0;
  double cv = 0;
};
Spread SpreadOf(const std::vector<double>& values);

}  // namespace adaexplore::bench
