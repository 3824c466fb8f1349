#pragma once

// The flags of every command that evaluates (eval, mcp, worker; run, bench and adapt through
// EvalPart): the candidates and tasks of `eval`, how they are judged and where (--profile, the
// evaluation and worker settings' flags, the result cache, NATS), and how they lie over the
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

struct EvalFlags {
  std::string config_path;
  std::string task;
  std::vector<std::string> kernels;
  std::string kernel_dir;
  std::string tasks_dir;
  std::string kernels_dir;
  ProblemSelection problems;
  std::string workloads;    // FlashInfer-Trace definitions: which workloads (workload_selection.h).
  std::string traces_path;  // FlashInfer Trace JSON lines of definitions' results.
  std::string kernelbench_results_path;  // KernelBench's eval_results.json.
  std::string profile;
  SettingFlags settings;  // The evaluation settings' flags (eval/settings.h) that were given.
  SettingFlags workers;   // The worker settings' flags (workers/settings.h) that were given.
  std::string cache_path;
  bool no_cache = false;
  bool refresh = false;
  bool json = false;
  bool verbose = false;
  std::string log_level;
  std::string nats_url;
  std::string nats_queue;
  std::optional<double> nats_startup_timeout_s;
};

// How candidates are judged and where, on `command` (eval, mcp): --profile, the worker settings'
// flags (--python, --device, --gpus, --slots), the evaluation settings' flags, --cache,
// --no-cache, --refresh.
void AddJudgingFlags(CLI::App& command, EvalFlags& flags);

// --profile NAME on `command` (eval, run, bench), its help naming every profile.
void AddProfileFlag(CLI::App& command, std::string& profile);

// --nats URL and --queue NAME: evaluate on `adaexplore worker --nats` hosts (eval, run, bench).
void AddNatsFlags(CLI::App& command, std::string& url, std::string& queue,
                  std::optional<double>& wait_s);

// The evaluation flags that were given, over `config` (unset flags leave it alone). Shared with
// `adaexplore run`, whose evaluation flags are a subset.
Status ApplyEvalFlags(const EvalFlags& flags, Config& config);

}  // namespace adaexplore
