#pragma once

// Configuration: defaults, then a TOML file (adaexplore.toml in the working directory, or the
// file given with --config), then command-line flags, each overriding the one before. Unknown
// keys are errors, so a typo never silently does nothing.
//
//   [eval]     profile and the evaluation settings (eval/settings.h)
//   [workers]  python, device, gpus, slots (workers/settings.h)
//   [cache]    enabled, path
//   [log]      level
//   [search]   prompts_dir and the search's constants (search/settings.h)
//   [run]      the settings of a new run: steps, seed, language... (search/run_settings.h)
//   [llm]      model, retries, budget, cache, record; [llm.openai], [llm.anthropic] and
//              [llm.prices."provider:model"] tables (config/llm_config.h has the keys)

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "eval/profile.h"
#include "eval/settings.h"
#include "llm/options.h"
#include "search/settings.h"
#include "sys/fs.h"  // DefaultCacheDirectory, for callers that used to find it here.
#include "workers/settings.h"

namespace adaexplore {

struct Config {
  EvalProfile profile = StrictProfile();
  // The [eval] settings the file gave (other than the profile): a flag that picks another
  // profile or precision rebuilds the profile and applies these again, so they still count.
  nlohmann::json eval_file = nlohmann::json::object();
  WorkerSettings workers;              // [workers]: where evaluations run (workers/settings.h).
  std::string gpus_origin = "--gpus";  // Where workers.gpus came from, for an error about them.
  bool cache_enabled = true;
  std::string cache_path;  // Empty: $XDG_CACHE_HOME/adaexplore/eval-cache.sqlite.
  std::string log_level = "warn";
  std::string prompts_dir;  // Edited prompt templates; empty: the project's prompts/.
  SearchSettings search;    // The search's constants (search/settings.h).
  nlohmann::json search_file = nlohmann::json::object();  // The [search] settings the file gave.
  // The [run] settings the file gave (search/run_settings.h): a new run's spec takes them, under
  // its command's flags. A resumed run keeps its own.
  nlohmann::json run_file = nlohmann::json::object();
  // Scale-out: evaluate through NATS JetStream (`adaexplore worker --nats` on GPU hosts) instead
  // of local workers. Empty url: local. Empty queue: the first worker that answers names it.
  std::string nats_url;
  std::string nats_queue;
  double nats_startup_timeout_s = 300;  // For the first worker to answer.
  LlmOptions llm;
};

// Reads `path` over `config`. A missing explicit file is an error; pass `required = false` for
// the implicit ./adaexplore.toml.
Status LoadConfigFile(const std::string& path, bool required, Config& config);

// Parses TOML text (for tests).
Status ApplyConfigText(std::string_view text, const std::string& origin, Config& config);

}  // namespace adaexplore
