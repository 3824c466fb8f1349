#include "cli/worker_command.h"

#include "app/run_setup.h"
#include "config/config.h"
#include "dist/nats_worker.h"
#include "sys/fs.h"
#include "sys/signals.h"
#include "workers/settings.h"

namespace adaexplore {

void AddWorkerCommand(CLI::App& app, WorkerFlags& f) {
  CLI::App* worker =
      app.add_subcommand("worker", "Serve evaluation jobs from NATS JetStream on this host's GPUs");
  worker->add_option("--nats", f.url, "NATS server URL (nats://host:4222)")->required();
  worker->add_option("--name", f.name, "This host's name in results (default: the host name)");
  worker
      ->add_option("--ack-wait", f.ack_wait_s,
                   "Seconds without a heartbeat before a job goes to another host (30)")
      ->check(CLI::PositiveNumber);
  worker->add_option("--max-deliver", f.max_deliver, "Deliveries of one job at most (5)")
      ->check(CLI::PositiveNumber);
  AddSettingFlags(*worker, WorkerSettingTable(), f.judging.workers);
  worker->add_option("--config", f.judging.config_path, "TOML configuration");
  worker->add_option("--log-level", f.judging.log_level,
                     "trace, debug, info (default), warn, error");
}

Result<int> RunWorkerCommand(const WorkerFlags& f) {
  ASSIGN_OR_RETURN(Config config, LoadJudgingConfig(f.judging));
  if (f.judging.log_level.empty()) {
    config.log_level = "info";
  }
  ASSIGN_OR_RETURN(Logger logger, MakeStderrLogger(config.log_level));
  ASSIGN_OR_RETURN(TempDir scratch, TempDir::Create("adaexplore-worker-"));
  ASSIGN_OR_RETURN(std::vector<WorkerSpec> specs, PlanWorkers(config, scratch.path(), logger));
  InterruptGuard guard;
  // Field by field: GCC 12 at -O3 takes the designated form's defaulted PoolOptions for
  // uninitialised (-Wmaybe-uninitialized).
  NatsWorkerOptions options;
  options.url = f.url;
  options.specs = std::move(specs);
  options.host = f.name;
  options.ack_wait_s = f.ack_wait_s;
  options.max_deliver = f.max_deliver;
  options.logger = logger;
  Result<int> code = RunNatsWorker(std::move(options), guard);
  if (!code.ok()) {
    scratch.Release();  // Worker logs explain a failed start.
  }
  return code;
}

}  // namespace adaexplore
