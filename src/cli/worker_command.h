#pragma once

// `adaexplore worker --nats URL`: serve evaluation jobs from NATS JetStream on this host's GPUs
// (dist/nats_worker.h). Start one per GPU host; the orchestrator (`eval`, `run` or `bench` with
// --nats URL) needs no GPU.
//
//   adaexplore worker --nats nats://queue-host:4222 [--gpus 0,1] [--slots 2] [--python PY]
//                     [--name HOST] [--ack-wait 30] [--max-deliver 5]

#include <CLI/CLI.hpp>
#include <string>

#include "cli/eval_flags.h"
#include "core/result.h"

namespace adaexplore {

struct WorkerFlags {
  std::string url;
  std::string name;
  double ack_wait_s = 30;
  int max_deliver = 5;
  JudgingFlags judging;  // The worker settings, config, log level.
};

void AddWorkerCommand(CLI::App& app, WorkerFlags& flags);
Result<int> RunWorkerCommand(const WorkerFlags& flags);

}  // namespace adaexplore
