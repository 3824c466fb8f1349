#pragma once

// The flags of the commands that search (run, bench, adapt): the tasks, the model, the method and
// the run's settings, the judging flags among them (JudgingFlags), and how they make a run's
// configuration, its spec, its tasks and its LLM client.

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/eval_flags.h"
#include "cli/problem_flags.h"
#include "cli/setting_flags.h"
#include "config/config.h"
#include "core/log.h"
#include "core/result.h"
#include "llm/client.h"
#include "search/run_settings.h"
#include "search/run_spec.h"
#include "store/run_db.h"
#include "task/source_file.h"

namespace adaexplore {

// Where `run` keeps its run database unless --db says, and where report and export look for one
// when none is named.
inline constexpr const char* kDefaultRunDb = "adaexplore-run.sqlite";

struct RunFlags {
  // Members are grouped by size (strings and lists, then 8-byte numbers, ints, flags): the
  // struct is copied per bench method and adapt wave, and clang-tidy checks its padding.
  JudgingFlags judging;  // The configuration, profile, evaluation and worker settings, NATS.
  std::vector<std::string> tasks;
  ProblemSelection problems;
  std::string workloads;  // FlashInfer-Trace definitions: which workloads (workload_selection.h).
  std::string model;
  std::string method = "adaexplore";
  std::string memory_path;
  std::vector<std::string> seed_kernels;  // --seed-kernel: files, or folders of <task>.py.
  std::string db_path = kDefaultRunDb;
  std::string out_dir = "adaexplore-out";
  std::string record_path;
  SettingFlags run_settings;  // The run settings' flags (search/run_settings.h) given.
  SettingFlags role_models;   // --proposer-model, ... (llm/role_models.h) given.
  // A new run's settings before the config file's [run] and the flags: the command's defaults
  // (adapt: 25 steps, no reviser).
  RunSpec defaults;
  std::optional<int64_t> run_id;       // --run; unset: the latest run.
  std::optional<double> expand_ratio;  // c_e / c; unset: [search] expand_ratio (default 1).
  int memory_min_count = 3;
  bool resume = false;
  bool json = false;
};

// The settings' flags of a search (run, bench, adapt): the worker, run and evaluation settings,
// --no-cache, --config and --log-level.
void AddSearchSettingFlags(CLI::App& command, RunFlags& flags);

// The search's constants a new run takes: the config's [search], --expand-ratio over it.
SearchSettings EffectiveSearch(const RunFlags& flags, const Config& config);

// A resumed run judges with its own stored evaluation settings (not today's config file), with
// this invocation's flags over them, except --profile and --precision, which a run keeps.
Status RestoreRunProfile(const RunInfo& run, const RunFlags& flags, Config& config);

// The method a --method flag names; an unknown name is an error listing them all.
Result<SearchMethod> SearchMethodFlag(const std::string& name);

// The spec of a new run with these flags under `config`: the command's defaults, then the
// config's [run], then the run settings' flags (search/run_settings.h); the model from --llm or
// [llm] model, each role's from its flag or [llm.roles], the search constants from EffectiveSearch,
// the memory's rules from --memory. Tasks are apart.
Result<RunSpec> RunSpecFromFlags(const RunFlags& flags, const Config& config);

// Tasks named on the command line: files, or folders of .py files. None is an error.
Result<std::vector<SourceFile>> ReadTasks(const std::vector<std::string>& paths,
                                          const std::string& workloads = "");

}  // namespace adaexplore
