#pragma once

// Where evaluations run, declared once as a settings table (core/setting.h): [workers] in
// adaexplore.toml, and the flags --python, --device, --gpus and --slots of every command that
// evaluates (eval, run, bench, adapt, mcp, worker), with their checks and the settings table of
// docs/configuration.md derived from it. Which GPUs are visible is decided when the workers are
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
};

// python, device, gpus, slots.
const std::vector<Setting<WorkerSettings>>& WorkerSettingTable();

// Those present in `settings`, all or none: an unknown name, a wrong type or a value out of
// range (a negative GPU index, slots outside [1, kMaxSlots]) is an error naming the setting.
Status ApplyWorkerSettings(const nlohmann::json& settings, WorkerSettings& workers);

}  // namespace adaexplore
