#include "app/run_setup.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "app/devices.h"
#include "dist/nats_pool.h"

#ifndef ADAEXPLORE_PYTHON_DIR
#define ADAEXPLORE_PYTHON_DIR ""
#endif

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

constexpr int kGpuSlotsDefault = 2;
constexpr double kMemoryFractionForEvaluations = 0.8;
constexpr double kMemoryLimitCapMb = 64 * 1024;
constexpr double kMemoryLimitFloorMb = 2 * 1024;

double MemTotalMb() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kb = 0;
  while (in >> key >> kb) {
    if (key == "MemTotal:") {
      return kb / 1024;
    }
    in.ignore(1024, '\n');
  }
  return 16 * 1024;
}

}  // namespace

// The checkout this binary belongs to: build/adaexplore -> the folder above build/.
std::string ProjectRoot() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (fs::path dir = exe.parent_path(); !dir.empty() && dir != dir.root_path();
         dir = dir.parent_path()) {
      if (fs::exists(dir / "python" / "adaexplore_worker" / "__init__.py", ec)) {
        return dir.string();
      }
    }
  }
  return fs::path(ADAEXPLORE_PYTHON_DIR).parent_path().string();
}

std::string ResolvePython(const Config& config, const std::string& root) {
  if (!config.workers.python.empty()) {
    return config.workers.python;
  }
  if (const char* env = std::getenv("ADAEXPLORE_PYTHON"); env != nullptr && *env != '\0') {
    return env;
  }
  std::error_code ec;
  const fs::path venv = fs::path(root) / ".venv" / "bin" / "python";
  return fs::exists(venv, ec) ? venv.string() : "python3";
}

Result<std::vector<WorkerSpec>> PlanWorkers(const Config& config, const std::string& scratch,
                                            const Logger& logger) {
  ASSIGN_OR_RETURN(DevicePlan plan, PlanDevices(config.workers, config.gpus_origin));
  const std::string root = ProjectRoot();
  const std::string python = ResolvePython(config, root);
  const std::string python_path = (fs::path(root) / "python").string();
  const std::string triton_cache = DefaultCacheDirectory() + "/triton";
  // FlashInfer (the expert baseline) caches the kernels it compiles below $HOME, which a job's
  // process sets to its own folder: the user's home keeps them across jobs, unless they chose.
  const char* home = std::getenv("HOME");
  const std::string flashinfer_base =
      std::getenv("FLASHINFER_WORKSPACE_BASE") == nullptr && home != nullptr ? home : "";
  std::vector<WorkerSpec> specs;
  auto base = [&](std::string label) {
    WorkerSpec spec;
    spec.python = python;
    spec.python_path = python_path;
    spec.scratch_dir = scratch + "/" + label;
    spec.reference_cache_mb = config.workers.reference_cache_mb;
    spec.lock_patience_s = config.workers.lock_patience_s;
    spec.judge_threads = config.workers.judge_threads;
    spec.sandbox = config.profile.sandbox;
    // --no-sandbox is the user's own choice, stated in every result: nothing to require then.
    spec.require_sandbox = config.profile.require_sandbox && config.profile.sandbox;
    spec.label = std::move(label);
    spec.env = {{"TRITON_CACHE_DIR", triton_cache}};
    if (!flashinfer_base.empty()) {
      spec.env.emplace_back("FLASHINFER_WORKSPACE_BASE", flashinfer_base);
    }
    return spec;
  };
  if (plan.kind == "cpu") {
    WorkerSpec spec = base("cpu");
    spec.device_kind = DeviceKind::kCpu;
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    spec.slots = config.workers.slots > 0 ? config.workers.slots : std::min(2, cores);
    specs.push_back(std::move(spec));
  } else {
    for (const std::string& gpu : plan.gpus) {
      WorkerSpec spec = base("gpu" + gpu);
      spec.device_kind = DeviceKind::kCuda;
      spec.visible_devices = gpu;
      spec.slots = config.workers.slots > 0 ? config.workers.slots : kGpuSlotsDefault;
      spec.ahead = config.workers.prepare_ahead;  // On a CPU it would take the slots' cores.
      specs.push_back(std::move(spec));
    }
  }
  logger->info("workers: {} x {} ({} slot(s) and {} ahead each), python {}", specs.size(),
               plan.kind, specs.front().slots, specs.front().ahead, python);
  return specs;
}

double DefaultMemoryLimitMb(const std::vector<WorkerSpec>& specs) {
  int evaluations = 0;
  for (const WorkerSpec& s : specs) {
    evaluations += s.slots + s.ahead;  // Children preparing ahead hold memory too.
  }
  const double share = MemTotalMb() * kMemoryFractionForEvaluations / std::max(1, evaluations);
  return std::clamp(share, kMemoryLimitFloorMb, kMemoryLimitCapMb);
}

Result<std::unique_ptr<Evaluator>> StartEvaluator(
    Config& config, bool refresh_cache, const Logger& logger, TempDir& scratch,
    const InterruptGuard& guard,
    std::function<void(const std::string&, const std::string&)> on_progress) {
  ASSIGN_OR_RETURN(std::vector<WorkerSpec> specs, PlanWorkers(config, scratch.path(), logger));
  if (config.profile.memory_limit_mb <= 0) {
    config.profile.memory_limit_mb = DefaultMemoryLimitMb(specs);
  }
  if (const std::string_view caveat = ProfileCaveat(config.profile.name); !caveat.empty()) {
    logger->warn("{}", caveat);
  }
  EvaluatorOptions options{.profile = config.profile, .workers = specs, .logger = logger};
  if (config.cache_enabled) {
    options.cache_path = config.cache_path.empty() ? DefaultCacheDirectory() + "/eval-cache.sqlite"
                                                   : config.cache_path;
  }
  options.refresh_cache = refresh_cache;
  options.pool.on_progress = [logger, on_progress = std::move(on_progress)](
                                 const std::string& id, const std::string& phase) {
    logger->debug("job {}: {}", id, phase);
    if (on_progress) {
      on_progress(id, phase);
    }
  };
  const std::string scratch_path = scratch.path();
  if (!config.nats_url.empty()) {
    NatsPoolOptions nats{.url = config.nats_url,
                         .queue = config.nats_queue,
                         .startup_timeout_s = config.nats_startup_timeout_s,
                         .logger = logger};
    nats.on_progress = options.pool.on_progress;
    ASSIGN_OR_RETURN(std::unique_ptr<NatsPool> pool, NatsPool::Connect(nats, &guard));
    return Evaluator::Start(options, &guard, std::move(pool));
  }
  Result<std::unique_ptr<Evaluator>> started = Evaluator::Start(options, &guard);
  if (!started.ok()) {
    scratch.Release();  // The error names worker logs in here; keep them.
    return started.status().WithContext("starting the evaluation workers (logs kept in " +
                                        scratch_path + ")");
  }
  return started;
}

Result<std::unique_ptr<SearchSession>> OpenSearchSession(Config& config, RunDb db,
                                                         const std::string& db_path,
                                                         const Logger& logger,
                                                         const InterruptGuard& guard,
                                                         bool refresh_cache) {
  // Runs store the profile as configured: a limit left to the machine (the memory limit) is
  // chosen again by the machine that resumes them.
  EvalProfile configured = config.profile;
  ASSIGN_OR_RETURN(TempDir scratch, TempDir::Create("adaexplore-run-"));
  ASSIGN_OR_RETURN(std::unique_ptr<Evaluator> evaluator,
                   StartEvaluator(config, refresh_cache, logger, scratch, guard));
  SessionOptions options{
      .profile = std::move(configured),
      .prompts_dir = config.prompts_dir.empty() ? ProjectRoot() + "/prompts" : config.prompts_dir,
      .db_path = db_path,
      .guard = &guard,
      .logger = logger};
  return std::make_unique<SearchSession>(std::move(options), std::move(db), std::move(evaluator),
                                         std::move(scratch));
}

}  // namespace adaexplore
