#include "cli/eval_flags.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/worker_flags.h"
#include "eval/profile.h"
#include "eval/settings.h"
#include "workers/settings.h"

namespace adaexplore {

Status ApplyJudgingFlags(const JudgingFlags& f, Config& config) {
  ASSIGN_OR_RETURN(const nlohmann::json flagged, SettingFlagValues(EvalSettingTable(), f.settings));
  // The profile's defaults, then the config file's settings, then the flags', key by key (flags
  // outrank the file, the file the profile: an atol the file sets stays under --precision bf16).
  ASSIGN_OR_RETURN(EvalProfile rebuilt,
                   ProfileByName(f.profile.empty() ? config.profile.name : f.profile));
  nlohmann::json settings = config.eval_file;
  settings.update(flagged);
  RETURN_IF_ERROR(ApplyEvalSettings(settings, rebuilt));
  config.profile = std::move(rebuilt);
  RETURN_IF_ERROR(ApplyWorkerFlags(f.workers, config));
  if (!f.cache_path.empty()) {
    config.cache_path = f.cache_path;
  }
  if (f.no_cache) {
    config.cache_enabled = false;
  }
  if (!f.log_level.empty()) {
    config.log_level = f.log_level;
  }
  if (!f.nats_url.empty()) {
    config.nats_url = f.nats_url;
  }
  if (!f.nats_queue.empty()) {
    config.nats_queue = f.nats_queue;
  }
  if (f.nats_startup_timeout_s) {
    config.nats_startup_timeout_s = *f.nats_startup_timeout_s;
  }
  return Status::Ok();
}

Result<Config> LoadJudgingConfig(const JudgingFlags& f) {
  Config config;
  RETURN_IF_ERROR(LoadConfigFile(f.config_path.empty() ? "adaexplore.toml" : f.config_path,
                                 !f.config_path.empty(), config));
  RETURN_IF_ERROR(ApplyJudgingFlags(f, config));
  return config;
}

void AddJudgingFlags(CLI::App& command, EvalFlags& f) {
  JudgingFlags& j = f.judging;
  AddProfileFlag(command, j.profile);
  AddSettingFlags(command, WorkerSettingTable(), j.workers);
  AddSettingFlags(command, EvalSettingTable(), j.settings);
  command.add_option("--cache", j.cache_path, "Result cache (SQLite) path");
  command.add_flag("--no-cache", j.no_cache, "Neither read nor write the result cache");
  command.add_flag("--refresh", f.refresh, "Evaluate again and overwrite cached results");
}

void AddProfileFlag(CLI::App& command, std::string& profile) {
  std::vector<std::string> names;
  for (const std::string_view name : ProfileNames()) {
    names.emplace_back(name);
  }
  names.front() += " (default)";
  const std::string last = names.back();
  names.pop_back();
  command.add_option("--profile", profile,
                     fmt::format("Evaluation profile: {} or {} (docs/eval.md: profiles)",
                                 fmt::join(names, ", "), last));
}

void AddNatsFlags(CLI::App& command, std::string& url, std::string& queue,
                  std::optional<double>& wait_s) {
  command.add_option("--nats", url,
                     "Evaluate through NATS JetStream on `adaexplore worker --nats` hosts");
  command.add_option("--queue", queue,
                     "With --nats: the workers' queue, e.g. nvidia-h200 (default: the first "
                     "worker that answers)");
  command
      .add_option("--nats-startup-timeout", wait_s,
                  "With --nats: seconds to wait for a worker to answer (300)")
      ->check(CLI::PositiveNumber);
}

}  // namespace adaexplore
