#pragma once

// Which devices this run uses: the GPUs named by the user, or those CUDA_VISIBLE_DEVICES or
// nvidia-smi report, or the CPU (Triton's interpreter) when there are none.

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace adaexplore {

struct DevicePlan {
  std::string kind;               // "cuda" or "cpu".
  std::vector<std::string> gpus;  // CUDA_VISIBLE_DEVICES value for each worker.
};

// `requested` is "auto", "cuda" or "cpu" (anything else is an error naming it); `indices`
// restricts the GPUs (empty: all visible); an index that is not visible is an error naming
// `indices_origin` (the flag, or the config file and key).
Result<DevicePlan> PlanDevices(const std::string& requested, const std::vector<int>& indices,
                               std::string_view indices_origin = "--gpus");

}  // namespace adaexplore
