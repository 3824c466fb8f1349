#pragma once

// Which devices this run uses: the GPUs named by the user, or those CUDA_VISIBLE_DEVICES or
// nvidia-smi report, or the CPU (Triton's interpreter) when there are none.

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "workers/settings.h"

namespace adaexplore {

struct DevicePlan {
  std::string kind;               // "cuda" or "cpu".
  std::vector<std::string> gpus;  // CUDA_VISIBLE_DEVICES value for each worker.
};

// `workers.device` as its settings table checked it ("auto", "cuda" or "cpu"); `workers.gpus`
// restricts the GPUs (empty: all visible); an index that is not visible is an error naming
// `gpus_origin` (the flag, or the config file and key).
Result<DevicePlan> PlanDevices(const WorkerSettings& workers,
                               std::string_view gpus_origin = "--gpus");

}  // namespace adaexplore
