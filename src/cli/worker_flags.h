#pragma once

// The [workers] settings' flags (--python, --device, --gpus, --slots; workers/settings.h) read
// over the configuration's [workers], for every command that evaluates and for the benchmarks.
//
//   AddSettingFlags(*command, WorkerSettingTable(), flags.workers);
//   ...parse...
//   RETURN_IF_ERROR(ApplyWorkerFlags(flags.workers, config));

#include <nlohmann/json.hpp>

#include "cli/setting_flags.h"
#include "config/config.h"
#include "core/result.h"
#include "workers/settings.h"

namespace adaexplore {

// The flags given, checked as the file's settings are, over `config.workers`; with --gpus given,
// an error about a GPU it names names the flag (config.gpus_origin).
inline Status ApplyWorkerFlags(const SettingFlags& flags, Config& config) {
  ASSIGN_OR_RETURN(const nlohmann::json given, SettingFlagValues(WorkerSettingTable(), flags));
  RETURN_IF_ERROR(ApplyWorkerSettings(given, config.workers));
  if (given.contains("gpus")) {
    config.gpus_origin = "--gpus";
  }
  return Status::Ok();
}

}  // namespace adaexplore
