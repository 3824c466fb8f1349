#pragma once

// The flags of every command that evaluates (eval, mcp, worker; run, bench and adapt through their
// search's flags): the candidates and tasks of `eval`, how they are judged and where (--profile,
// the evaluation and worker settings' flags, the result cache, NATS), and how they lie over the
// configuration file.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/problem_flags.h"
#include "cli/setting_flags.h"
#include "config/config.h"
#include "core/result.h"

namespace adaexplore {

// What every command that evaluates shares (eval, mcp, worker; run, bench and adapt as a search's
// flags): the configuration file, how candidates are judged (--profile, the evaluation settings'
// flags), where (the worker settings' flags, NATS), the result cache and the log level.
struct JudgingFlags {
  std::string config_path;
  std::string profile;
  SettingFlags settings;  // The evaluation settings' flags (eval/settings.h) that were given.
  SettingFlags workers;   // The worker settings' flags (workers/settings.h) that were given.
  std::string cache_path;
  std::string log_level;
  std::string nats_url;
  std::string nats_queue;
  std::optional<double> nats_startup_timeout_s;
  bool no_cache = false;
};

struct EvalFlags {
  JudgingFlags judging;
  std::string task;
  std::vector<std::string> kernels;
  std::string kernel_dir;
  std::string tasks_dir;
  std::string kernels_dir;
  ProblemSelection problems;
  std::string workloads;    // FlashInfer-Trace definitions: which workloads (workload_selection.h).
  std::string traces_path;  // FlashInfer Trace JSON lines of definitions' results.
  std::string kernelbench_results_path;  // KernelBench's eval_results.json.
  bool refresh = false;
  bool json = false;
  bool verbose = false;
};

// How candidates are judged and where, on `command` (eval, mcp): --profile, the worker settings'
// flags (--python, --device, --gpus, --slots...), the evaluation settings' flags, --cache,
// --no-cache, --refresh.
void AddJudgingFlags(CLI::App& command, EvalFlags& flags);

// --profile NAME on `command` (eval, run, bench), its help naming every profile.
void AddProfileFlag(CLI::App& command, std::string& profile);

// --nats URL and --queue NAME: evaluate on `adaexplore worker --nats` hosts (eval, run, bench).
void AddNatsFlags(CLI::App& command, std::string& url, std::string& queue,
                  std::optional<double>& wait_s);

// The judging flags that were given, over `config` (unset flags leave it alone).
Status ApplyJudgingFlags(const JudgingFlags& flags, Config& config);

// The configuration these flags run under: defaults, then the config file (--config, or
// ./adaexplore.toml if there is one), then the flags.
Result<Config> LoadJudgingConfig(const JudgingFlags& flags);

}  // namespace adaexplore
