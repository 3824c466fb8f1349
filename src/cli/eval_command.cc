#include "cli/eval_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cli/devices.h"
#include "cli/output.h"
#include "config/config.h"
#include "core/log.h"
#include "eval/evaluator.h"
#include "sys/fs.h"
#include "sys/signals.h"

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
  if (!config.python.empty()) {
    return config.python;
  }
  if (const char* env = std::getenv("ADAEXPLORE_PYTHON"); env != nullptr && *env != '\0') {
    return env;
  }
  std::error_code ec;
  const fs::path venv = fs::path(root) / ".venv" / "bin" / "python";
  return fs::exists(venv, ec) ? venv.string() : "python3";
}

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

Status ApplyFlags(const EvalFlags& f, Config& config) {
  if (!f.profile.empty()) {
    ASSIGN_OR_RETURN(config.profile, ProfileByName(f.profile));
  }
  if (!f.precision.empty()) {
    RETURN_IF_ERROR(SetPrecision(config.profile, f.precision));
  }
  EvalProfile& p = config.profile;
  if (f.timeout_s > 0) p.timeout_s = f.timeout_s;
  if (f.trials > 0) p.trials = f.trials;
  if (f.timed_runs > 0) p.timed_runs = f.timed_runs;
  if (f.warmup_runs >= 0) p.warmup_runs = f.warmup_runs;
  if (f.memory_limit_mb >= 0) p.memory_limit_mb = f.memory_limit_mb;
  if (f.compile_baseline) p.compile_baseline = true;
  if (!f.device.empty()) config.device = f.device;
  if (!f.gpus.empty()) config.gpus = f.gpus;
  if (f.slots >= 0) config.slots = f.slots;
  if (!f.python.empty()) config.python = f.python;
  if (!f.cache_path.empty()) config.cache_path = f.cache_path;
  if (f.no_cache) config.cache_enabled = false;
  if (!f.log_level.empty()) config.log_level = f.log_level;
  return Status::Ok();
}

Result<std::vector<EvalRequest>> CollectRequests(const EvalFlags& f) {
  std::vector<std::pair<std::string, std::string>> pairs;  // (task, kernel)
  if (!f.tasks_dir.empty() || !f.kernels_dir.empty()) {
    if (f.tasks_dir.empty() || f.kernels_dir.empty() || !f.task.empty()) {
      return InvalidArgument(
          "the batch form needs both --tasks-dir and --kernels-dir, and no "
          "--task");
    }
    std::error_code ec;
    std::vector<fs::path> entries;
    for (const auto& e : fs::directory_iterator(f.kernels_dir, ec)) {
      entries.push_back(e.path());
    }
    if (ec) {
      return NotFound("cannot list " + f.kernels_dir + ": " + ec.message());
    }
    std::sort(entries.begin(), entries.end());
    for (const fs::path& entry : entries) {
      const bool dir = fs::is_directory(entry, ec);
      const std::string stem = dir ? entry.filename().string() : entry.stem().string();
      if (!dir && entry.extension() != ".py") {
        continue;
      }
      const std::string task = (fs::path(f.tasks_dir) / (stem + ".py")).string();
      if (!fs::exists(task, ec)) {
        return NotFound("no task " + task + " for kernels in " + entry.string());
      }
      if (dir) {
        ASSIGN_OR_RETURN(std::vector<std::string> files, ListPythonFiles(entry.string()));
        for (const std::string& k : files) {
          pairs.emplace_back(task, k);
        }
      } else {
        pairs.emplace_back(task, entry.string());
      }
    }
  } else {
    if (f.task.empty()) {
      return InvalidArgument(
          "give --task with --kernel/--kernel-dir, or --tasks-dir with "
          "--kernels-dir");
    }
    std::vector<std::string> kernels = f.kernels;
    if (!f.kernel_dir.empty()) {
      ASSIGN_OR_RETURN(std::vector<std::string> files, ListPythonFiles(f.kernel_dir));
      kernels.insert(kernels.end(), files.begin(), files.end());
    }
    if (kernels.empty()) {
      return InvalidArgument("no kernels to evaluate (use --kernel or --kernel-dir)");
    }
    for (const std::string& k : kernels) {
      pairs.emplace_back(f.task, k);
    }
  }
  std::map<std::string, SourceFile> tasks;
  std::vector<EvalRequest> requests;
  for (const auto& [task_path, kernel_path] : pairs) {
    if (!tasks.contains(task_path)) {
      Result<SourceFile> task = ReadSourceFile(task_path);
      if (!task.ok()) {
        return task.status().WithContext("reading the task");
      }
      tasks.emplace(task_path, std::move(*task));
    }
    Result<SourceFile> kernel = ReadSourceFile(kernel_path);
    if (!kernel.ok()) {
      return kernel.status().WithContext("reading a kernel");
    }
    requests.push_back(EvalRequest{.task = tasks.at(task_path), .candidate = std::move(*kernel)});
  }
  return requests;
}

Result<std::vector<WorkerSpec>> PlanWorkers(const Config& config, const std::string& scratch,
                                            Logger logger) {
  ASSIGN_OR_RETURN(DevicePlan plan, PlanDevices(config.device, config.gpus));
  const std::string root = ProjectRoot();
  const std::string python = ResolvePython(config, root);
  const std::string python_path = (fs::path(root) / "python").string();
  const std::string triton_cache = DefaultCacheDirectory() + "/triton";
  std::vector<WorkerSpec> specs;
  auto base = [&](std::string label) {
    WorkerSpec spec;
    spec.python = python;
    spec.python_path = python_path;
    spec.scratch_dir = scratch + "/" + label;
    spec.label = std::move(label);
    spec.env = {{"TRITON_CACHE_DIR", triton_cache}};
    return spec;
  };
  if (plan.kind == "cpu") {
    WorkerSpec spec = base("cpu");
    spec.device_kind = "cpu";
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    spec.slots = config.slots > 0 ? config.slots : std::min(2, cores);
    specs.push_back(std::move(spec));
  } else {
    for (const std::string& gpu : plan.gpus) {
      WorkerSpec spec = base("gpu" + gpu);
      spec.device_kind = "cuda";
      spec.visible_devices = gpu;
      spec.slots = config.slots > 0 ? config.slots : kGpuSlotsDefault;
      specs.push_back(std::move(spec));
    }
  }
  logger->info("workers: {} x {} ({} slot(s) each), python {}", specs.size(), plan.kind,
               specs.front().slots, python);
  return specs;
}

double DefaultMemoryLimitMb(const std::vector<WorkerSpec>& specs) {
  int evaluations = 0;
  for (const WorkerSpec& s : specs) {
    evaluations += s.slots;
  }
  const double share = MemTotalMb() * kMemoryFractionForEvaluations / std::max(1, evaluations);
  return std::clamp(share, kMemoryLimitFloorMb, kMemoryLimitCapMb);
}

}  // namespace

void AddEvalCommand(CLI::App& app, EvalFlags& f) {
  CLI::App* eval = app.add_subcommand(
      "eval", "Evaluate candidate kernels against a task: correctness, integrity, speed");
  eval->add_option("--task", f.task,
                   "Task file (KernelBench format: Model, get_inputs, "
                   "get_init_inputs)");
  eval->add_option("--kernel", f.kernels, "Candidate file defining ModelNew (repeatable)");
  eval->add_option("--kernel-dir", f.kernel_dir, "Evaluate every .py file in this folder");
  eval->add_option("--tasks-dir", f.tasks_dir, "Batch form: folder of task files");
  eval->add_option("--kernels-dir", f.kernels_dir,
                   "Batch form: folder with one subfolder (or file) per task name");
  eval->add_option("--profile", f.profile, "strict (default) or paper");
  eval->add_option("--precision", f.precision, "fp32 (default), bf16 or fp16");
  eval->add_option("--device", f.device, "auto (default), cuda or cpu");
  eval->add_option("--gpus", f.gpus, "GPU indices to use (default: all visible)")->delimiter(',');
  eval->add_option("--slots", f.slots, "Evaluations per device at once (default 2 per GPU)");
  eval->add_option("--timeout", f.timeout_s, "Seconds per candidate, compile included (180)");
  eval->add_option("--trials", f.trials, "Correctness trials (5)");
  eval->add_option("--timed-runs", f.timed_runs, "Timed runs (100)");
  eval->add_option("--warmup", f.warmup_runs, "Warm-up runs before timing (10)");
  eval->add_option("--memory-limit-mb", f.memory_limit_mb,
                   "Host memory per evaluation (default: a share of RAM)");
  eval->add_flag("--compile-baseline", f.compile_baseline, "Also time torch.compile(reference)");
  eval->add_option("--python", f.python, "Python interpreter with torch and triton");
  eval->add_option("--cache", f.cache_path, "Result cache (SQLite) path");
  eval->add_flag("--no-cache", f.no_cache, "Neither read nor write the result cache");
  eval->add_flag("--refresh", f.refresh, "Evaluate again and overwrite cached results");
  eval->add_flag("--json", f.json, "One JSON object per candidate on stdout");
  eval->add_flag("-v,--verbose", f.verbose, "Show full error text for failed candidates");
  eval->add_option("--config", f.config_path, "TOML configuration (default ./adaexplore.toml)");
  eval->add_option("--log-level", f.log_level, "trace, debug, info, warn (default), error");
}

Result<int> RunEval(const EvalFlags& flags) {
  Config config;
  RETURN_IF_ERROR(LoadConfigFile(flags.config_path.empty() ? "adaexplore.toml" : flags.config_path,
                                 !flags.config_path.empty(), config));
  RETURN_IF_ERROR(ApplyFlags(flags, config));
  ASSIGN_OR_RETURN(Logger logger, MakeStderrLogger(config.log_level));
  ASSIGN_OR_RETURN(std::vector<EvalRequest> requests, CollectRequests(flags));

  InterruptGuard guard;
  ASSIGN_OR_RETURN(TempDir scratch, TempDir::Create("adaexplore-run-"));
  ASSIGN_OR_RETURN(std::vector<WorkerSpec> specs, PlanWorkers(config, scratch.path(), logger));
  if (config.profile.memory_limit_mb <= 0) {
    config.profile.memory_limit_mb = DefaultMemoryLimitMb(specs);
  }
  EvaluatorOptions options{.profile = config.profile, .workers = specs, .logger = logger};
  if (config.cache_enabled) {
    options.cache_path = config.cache_path.empty() ? DefaultCacheDirectory() + "/eval-cache.sqlite"
                                                   : config.cache_path;
  }
  options.refresh_cache = flags.refresh;
  options.pool.on_progress = [&logger](const std::string& id, const std::string& phase) {
    logger->debug("job {}: {}", id, phase);
  };
  ASSIGN_OR_RETURN(std::unique_ptr<Evaluator> evaluator, Evaluator::Start(options, &guard));
  if (!flags.json) {
    const WorkerHello& w = evaluator->workers().front();
    std::fprintf(stderr, "evaluating %zu candidate(s) on %s (torch %s, triton %s), profile %s\n",
                 requests.size(), w.device_name.c_str(), w.torch.c_str(), w.triton.c_str(),
                 config.profile.name.c_str());
  }
  const Detail detail = flags.verbose ? Detail::kFull : Detail::kBrief;
  ASSIGN_OR_RETURN(std::vector<EvalResult> results,
                   evaluator->Run(
                       requests,
                       [&](size_t, const EvalResult& r) {
                         const std::string text =
                             flags.json ? FormatJsonLine(r) : FormatHuman(r, detail);
                         std::fwrite(text.data(), 1, text.size(), stdout);
                         std::fflush(stdout);
                       },
                       &guard));
  if (!flags.json && results.size() > 1) {
    std::fputs(FormatSummary(results).c_str(), stdout);
  }
  const bool unevaluated = std::any_of(results.begin(), results.end(), [](const EvalResult& r) {
    return r.verdict == Verdict::kError || r.verdict == Verdict::kTaskError;
  });
  return unevaluated ? 1 : 0;
}

}  // namespace adaexplore
