#include "cli/search_flags.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "adapt/skill_memory.h"
#include "core/text.h"
#include "eval/settings.h"
#include "llm/provider.h"
#include "search/policy.h"
#include "store/stored_json.h"
#include "sys/fs.h"
#include "task/task_file.h"
#include "task/workload_selection.h"
#include "workers/settings.h"

namespace adaexplore {
namespace {

constexpr size_t kMaxMemoryRules = 200;

// A skill memory: a database (`adaexplore memory`, `adaexplore adapt`), or a text file with one
// rule per line, "rule||count" (the reference's format) or a bare rule (count 1). Rules below
// `min_count` are left out.
Result<std::vector<std::string>> ReadMemoryRules(const std::string& path, int min_count) {
  if (IsSqliteFile(path)) {
    ASSIGN_OR_RETURN(SkillMemory memory, SkillMemory::Open(path));
    return memory.PromptRules({.min_count = min_count});
  }
  ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  std::vector<std::string> rules;
  for (std::string_view raw : SplitLines(text)) {
    if (rules.size() >= kMaxMemoryRules) {
      break;
    }
    std::string line(raw);
    if (Trim(line).empty()) {
      continue;
    }
    int count = 1;
    if (size_t bar = line.rfind("||"); bar != std::string::npos) {
      count = std::atoi(line.c_str() + bar + 2);
      line.erase(bar);
    }
    if (count >= min_count) {
      rules.push_back(line);
    }
  }
  return rules;
}

}  // namespace

void AddSearchSettingFlags(CLI::App& command, RunFlags& f) {
  AddSettingFlags(command, WorkerSettingTable(), f.judging.workers);
  AddSettingFlags(command, RunSettingTable(), f.run_settings);
  AddSettingFlags(command, RoleModelSettingTable(), f.role_models);
  AddSettingFlags(command, EvalSettingTable(), f.judging.settings);
  command.add_flag("--no-cache", f.judging.no_cache, "Neither read nor write the result cache");
  command.add_option("--config", f.judging.config_path,
                     "TOML configuration (default ./adaexplore.toml)");
  command.add_option("--log-level", f.judging.log_level,
                     "trace, debug, info, warn (default), error");
}

SearchSettings EffectiveSearch(const RunFlags& flags, const Config& config) {
  SearchSettings search = config.search;
  if (flags.expand_ratio) {
    search.explore.expand_ratio = *flags.expand_ratio;
  }
  return search;
}

Status RestoreRunProfile(const RunInfo& run, const RunFlags& flags, Config& config) {
  std::string profile;
  nlohmann::json stored;
  RETURN_IF_ERROR(ReadStoredJson(RunsRow(run.id), "options", [&] {
    // Runs made before the settings were stored kept only profile and precision.
    profile = run.options.value("profile", "strict");
    stored = run.options.contains("eval")
                 ? run.options["eval"]
                 : nlohmann::json{{"precision", run.options.value("precision", "fp32")}};
    if (stored.is_object()) {  // Runs stored before the worker settings left [eval] kept them.
      stored = WithoutWorkerSettings(std::move(stored));
    }
    return Status::Ok();
  }));
  ASSIGN_OR_RETURN(config.profile, ProfileByName(profile));
  if (Status s = ApplyEvalSettings(stored, config.profile); !s.ok()) {
    return s.WithContext(fmt::format("run {}'s stored evaluation settings", run.id));
  }
  // The run's settings take the place of the config file's; flags other than the profile and
  // precision still count (a longer timeout, say).
  config.eval_file = stored;
  JudgingFlags judging = flags.judging;
  judging.profile.clear();
  judging.settings.given.erase("precision");
  return ApplyJudgingFlags(judging, config);
}

Result<std::vector<SourceFile>> ReadTasks(const std::vector<std::string>& paths,
                                          const std::string& workloads) {
  std::vector<SourceFile> tasks;
  for (const std::string& path : paths) {
    std::vector<std::string> files = {path};
    if (std::filesystem::is_directory(path)) {
      ASSIGN_OR_RETURN(files, ListCandidateFiles(path, /*with_json=*/true));
    }
    for (const std::string& file : files) {
      ASSIGN_OR_RETURN(SourceFile task, ReadTaskFile(file));
      RETURN_IF_ERROR(SelectWorkloads(workloads, task));
      tasks.push_back(std::move(task));
    }
  }
  if (tasks.empty()) {
    return InvalidArgument(
        "no task: pass --task FILE, a folder of task files, or --suite and --problem");
  }
  return tasks;
}

Result<SearchMethod> SearchMethodFlag(const std::string& name) {
  std::optional<SearchMethod> method = SearchMethodFromName(name);
  if (!method) {
    return InvalidArgument(
        fmt::format("--method must be one of {}, not '{}'", SearchMethodNames(), name));
  }
  return *method;
}

Result<RunSpec> RunSpecFromFlags(const RunFlags& flags, const Config& config) {
  RunSpec spec = flags.defaults;
  ASSIGN_OR_RETURN(spec.method, SearchMethodFlag(flags.method));
  spec.model = flags.model.empty() ? config.llm.model : flags.model;
  // First: the run settings below write into the search's (the objective).
  spec.search = EffectiveSearch(flags, config);
  RETURN_IF_ERROR(ApplyRunSettings(config.run_file, spec).WithContext("configuration: [run]"));
  ASSIGN_OR_RETURN(const nlohmann::json given,
                   SettingFlagValues(RunSettingTable(), flags.run_settings));
  RETURN_IF_ERROR(ApplyRunSettings(given, spec));
  if (spec.model.empty()) {
    return InvalidArgument("no model: pass --llm provider:model or set [llm] model");
  }
  spec.roles = config.llm.roles;
  ASSIGN_OR_RETURN(const nlohmann::json roles,
                   SettingFlagValues(RoleModelSettingTable(), flags.role_models));
  RETURN_IF_ERROR(ApplySettings(RoleModelSettingTable(), roles, spec.roles, "role models"));
  if (!flags.memory_path.empty()) {
    ASSIGN_OR_RETURN(spec.memory_rules, ReadMemoryRules(flags.memory_path, flags.memory_min_count));
  }
  return spec;
}

}  // namespace adaexplore
