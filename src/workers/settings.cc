#include "workers/settings.h"

namespace adaexplore {
namespace {

using WorkerSetting = Setting<WorkerSettings>;

template <typename T>
WorkerSetting Row(WorkerSetting row, T WorkerSettings::*field) {
  BindField(row, field);
  return row;  // Where a kernel runs never changes its verdict: nothing keys the cache.
}

std::vector<WorkerSetting> MakeTable() {
  WorkerSetting slots = {.name = "slots",
                         .kind = SettingKind::kInteger,
                         .flag = "--slots",
                         .default_text = "2 per GPU; 1-2 on the CPU",
                         .help = "evaluations per device at once; timing stays exclusive",
                         .min = 1,
                         .max = kMaxSlots};
  // Unset, it is 0 (the device's default), which the range refuses: read back as null.
  slots.get = [](const WorkerSettings& w) {
    return w.slots > 0 ? nlohmann::json(w.slots) : nlohmann::json();
  };
  slots.set = [](WorkerSettings& w, const nlohmann::json& v) {
    w.slots = v.get<int>();
    return Status::Ok();
  };
  return {
      Row({.name = "python",
           .kind = SettingKind::kText,
           .flag = "--python",
           .default_text = "$ADAEXPLORE_PYTHON, then ./.venv's",
           .help = "Python interpreter with torch and triton"},
          &WorkerSettings::python),
      Row({.name = "device",
           .kind = SettingKind::kChoice,
           .flag = "--device",
           .default_text = "auto",
           .help = "auto: GPUs if any are visible (CUDA_VISIBLE_DEVICES or nvidia-smi), else the "
                   "CPU (Triton's interpreter)",
           .choices = {"auto", "cuda", "cpu"}},
          &WorkerSettings::device),
      Row({.name = "gpus",
           .kind = SettingKind::kIntegerList,
           .flag = "--gpus",
           .default_text = "every visible GPU",
           .help = "indices of the GPUs to use",
           .min = 0},
          &WorkerSettings::gpus),
      slots,
      Row({.name = "prepare_ahead",
           .kind = SettingKind::kInteger,
           .flag = "--prepare-ahead",
           .default_text = "2",
           .help = "candidates per GPU whose CUDA start-up and reference outputs are made "
                   "while the slots are taken (0: when a slot frees)",
           .min = 0},
          &WorkerSettings::prepare_ahead),
      Row({.name = "reference_cache_mb",
           .kind = SettingKind::kNumber,
           .flag = "--reference-cache-mb",
           .default_text = "4096",
           .help = "host memory per worker for reference outputs shared by a task's "
                   "candidates (least recently used dropped; 0: made for every candidate)",
           .min = 0},
          &WorkerSettings::reference_cache_mb),
      Row({.name = "judge_threads",
           .kind = SettingKind::kInteger,
           .flag = "--judge-threads",
           .default_text = "4",
           .help = "host threads of each judge, the process that compares a candidate's "
                   "outputs with the sealed references beside the next evaluations",
           .min = 1},
          &WorkerSettings::judge_threads),
      Row({.name = "lock_patience_s",
           .kind = SettingKind::kNumber,
           .flag = "--lock-patience",
           .default_text = "2",
           .help = "seconds a check may hold the GPU while a timing waits before it is paused "
                   "until the timings are done (0: never; docs/harness.md)",
           .min = 0},
          &WorkerSettings::lock_patience_s),
  };
}

}  // namespace

const std::vector<WorkerSetting>& WorkerSettingTable() {
  static const std::vector<WorkerSetting> table = MakeTable();
  return table;
}

Status ApplyWorkerSettings(const nlohmann::json& settings, WorkerSettings& workers) {
  return ApplySettings(WorkerSettingTable(), settings, workers, "worker");
}

nlohmann::json WithoutWorkerSettings(nlohmann::json settings) {
  for (const WorkerSetting& s : WorkerSettingTable()) {
    settings.erase(std::string(s.name));
  }
  return settings;
}

}  // namespace adaexplore
