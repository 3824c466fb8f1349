#include "app/devices.h"

#include <fmt/format.h>

#include <cstdlib>
#include <sstream>

#include "sys/fs.h"
#include "sys/process.h"

namespace adaexplore {
namespace {

constexpr double kNvidiaSmiTimeoutSeconds = 20;

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> out;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, separator)) {
    const size_t begin = item.find_first_not_of(" \t\r");
    const size_t end = item.find_last_not_of(" \t\r");
    if (begin != std::string::npos) {
      out.push_back(item.substr(begin, end - begin + 1));
    }
  }
  return out;
}

// GPU indices as nvidia-smi lists them; empty when there is no nvidia-smi or no GPU.
std::vector<std::string> QueryNvidiaSmi() {
  Result<TempDir> dir = TempDir::Create("adaexplore-smi-");
  if (!dir.ok()) {
    return {};
  }
  const std::string out = dir->path() + "/out.txt";
  Result<Process> smi =
      Process::Spawn({.argv = {"nvidia-smi", "--query-gpu=index", "--format=csv,noheader"},
                      .stdout_path = out,
                      .stderr_path = dir->path() + "/err.txt"});
  if (!smi.ok()) {
    return {};
  }
  smi->Wait(Seconds(kNvidiaSmiTimeoutSeconds));
  smi->Terminate();
  if (!smi->exit_status() || smi->exit_status()->code != 0) {
    return {};
  }
  Result<std::string> text = ReadFile(out);
  return text.ok() ? Split(*text, '\n') : std::vector<std::string>{};
}

}  // namespace

Result<DevicePlan> PlanDevices(const WorkerSettings& workers, std::string_view gpus_origin) {
  const std::string& requested = workers.device;
  const std::vector<int>& indices = workers.gpus;
  if (requested == "cpu") {
    return DevicePlan{.kind = "cpu"};
  }
  std::vector<std::string> visible;
  const char* env = std::getenv("CUDA_VISIBLE_DEVICES");
  if (env != nullptr) {
    visible = Split(env, ',');
  } else {
    visible = QueryNvidiaSmi();
  }
  if (!indices.empty()) {
    std::vector<std::string> chosen;
    for (int index : indices) {
      if (index < 0 || static_cast<size_t>(index) >= visible.size()) {
        return InvalidArgument(fmt::format(
            "{}: GPU {} is not visible ({} visible{})", gpus_origin, index, visible.size(),
            visible.empty() ? "; leave the GPUs out, or use --device cpu" : ""));
      }
      chosen.push_back(visible[static_cast<size_t>(index)]);
    }
    visible = chosen;
  }
  if (visible.empty()) {
    if (requested == "cuda") {
      return Unavailable("--device cuda, but no GPU is visible (nvidia-smi found none)");
    }
    return DevicePlan{.kind = "cpu"};
  }
  return DevicePlan{.kind = "cuda", .gpus = visible};
}

}  // namespace adaexplore
