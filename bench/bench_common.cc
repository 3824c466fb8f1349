#include "bench/bench_common.h"

#include <cmath>
#include <cstdio>
#include <numeric>

#include "cli/worker_flags.h"
#include "core/json_text.h"
#include "sys/fs.h"
#include "workers/settings.h"

namespace adaexplore::bench {

void AddCommonFlags(CLI::App& app, BenchFlags& f) {
  app.add_option("--tasks-dir", f.sources.tasks_dir, "Folder of task files")->required();
  app.add_option("--kernels-dir", f.sources.kernels_dir, "Folder with one subfolder per task")
      ->required();
  AddSettingFlags(app, WorkerSettingTable(), f.workers);
  app.add_option("--timed-runs", f.timed_runs, "Timed runs per evaluation");
  app.add_option("--json-out", f.json_out, "Write the figures here as JSON");
  app.add_option("--log-level", f.log_level, "Log level");
}

Result<BenchSetup> SetUp(const BenchFlags& f) {
  BenchSetup setup;
  Config& config = setup.config;
  RETURN_IF_ERROR(ApplyWorkerFlags(f.workers, config));
  config.cache_enabled = false;
  config.log_level = f.log_level;
  if (f.timed_runs > 0) {
    config.profile.job.timed_runs = f.timed_runs;
  }
  ASSIGN_OR_RETURN(setup.logger, MakeStderrLogger(config.log_level));
  ASSIGN_OR_RETURN(CollectedRequests collected, CollectRequests(f.sources));
  if (!collected.unreadable.empty()) {  // A benchmark's set is read whole.
    return InvalidArgument(collected.unreadable.front().kernel_path + " " +
                           collected.unreadable.front().reason);
  }
  setup.requests = std::move(collected.requests);
  ASSIGN_OR_RETURN(TempDir scratch, TempDir::Create("adaexplore-bench-"));
  setup.scratch.emplace(std::move(scratch));
  ASSIGN_OR_RETURN(setup.workers, PlanWorkers(config, setup.scratch->path(), setup.logger));
  config.profile.memory_limit_mb = DefaultMemoryLimitMb(setup.workers);
  return setup;
}

Result<std::unique_ptr<Evaluator>> BenchSetup::StartEvaluator(const InterruptGuard& guard) const {
  return Evaluator::Start({.profile = config.profile, .workers = workers, .logger = logger},
                          &guard);
}

int RunMain(const char* name, Result<int> (*main)(int, char**), int argc, char** argv) {
  Result<int> code = main(argc, argv);
  if (!code.ok()) {
    (void)std::fprintf(stderr, "%s: %s\n", name, code.status().message().c_str());
    return 1;
  }
  return *code;
}

Status WriteJson(const BenchFlags& flags, const nlohmann::json& figures) {
  if (flags.json_out.empty()) {
    return Status::Ok();
  }
  return WriteFileAtomic(flags.json_out, JsonText(figures, 2) + "\n");
}

Spread SpreadOf(const std::vector<double>& values) {
  Spread s;
  if (values.empty()) {
    return s;
  }
  const double n = static_cast<double>(values.size());
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  double squares = 0;
  for (double v : values) {
    squares += (v - s.mean) * (v - s.mean);
  }
  const double sd = values.size() > 1 ? std::sqrt(squares / (n - 1)) : 0.0;
  s.cv = s.mean != 0 ? sd / s.mean : 0.0;
  return s;
}

}  // namespace adaexplore::bench
