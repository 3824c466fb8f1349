#pragma once

// The adapt stage's searches: waves of search runs over the tasks, the memory updated from each
// wave's failures before the next starts, so tasks of later waves see what earlier ones taught
// (the AdaExplore adapt stage). The waves are runs of one search session (the workers start
// once) and share one LLM client, so one budget covers them all. The caller (`adaexplore adapt`)
// makes the tasks (given, or synthesised first: adapt/synthesis.h) and shows the progress the
// observer reports.
//
//   ASSIGN_OR_RETURN(AdaptOutcome outcome,
//                    RunAdaptWaves(*session, *llm, memory, rule_prompts, options, observer));

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "adapt/memory_update.h"
#include "adapt/skill_memory.h"
#include "core/log.h"
#include "core/result.h"
#include "llm/client.h"
#include "search/run_spec.h"
#include "search/session.h"
#include "task/source_file.h"

namespace adaexplore {

struct AdaptOptions {
  std::vector<SourceFile> tasks;
  RunSpec base;            // Each wave's spec: this, with the memory's rules at the wave's start.
  ModelSpec writer_model;  // The rule writer's (base's roles, else base.model).
  ModelSpec judge_model;   // The judge's, likewise.
  size_t parallel = 4;     // Tasks per wave.
  int min_count = 3;       // Rules in the prompts from this count.
  bool include_incorrect = false;  // Also learn from numerical mismatches.
  std::string out_dir;             // Each wave's best kernels and summary.json go here.
  std::string db_path;             // For the summaries: where the runs can be resumed from.
  Logger logger = NullLogger();
};

struct AdaptWave {
  size_t number = 0;               // From 1.
  size_t count = 0;                // Waves in all.
  std::vector<std::string> tasks;  // Paths.
  size_t rules_in_prompts = 0;
  int64_t run = 0;            // Set once the wave's run has ended.
  MemoryUpdateStats learned;  // Set when the wave is done.
};

struct AdaptObserver {
  std::function<void(const AdaptWave&)> on_wave_start;
  std::function<void(const AdaptWave&)> on_learning;  // The run ended; the rules are next.
  std::function<void(const AdaptWave&)> on_wave_done;
  // Runs one wave's search in the session (the command draws its progress around it); unset:
  // the session's own Start with no observer.
  std::function<Result<RunOutcome>(SearchSession&, LlmClient&, const RunSpec&,
                                   const std::vector<SourceFile>&)>
      run;
};

struct AdaptOutcome {
  std::vector<AdaptWave> waves;
  MemoryUpdateStats total;
  bool stopped = false;  // Interrupted or out of budget: the memory keeps what was learned.
};

Result<AdaptOutcome> RunAdaptWaves(SearchSession& session, LlmClient& llm, SkillMemory& memory,
                                   const RulePrompts& rule_prompts, const AdaptOptions& options,
                                   const AdaptObserver& observer = {});

// The stats as the JSON of `adapt --json`.
nlohmann::json MemoryUpdateJson(const MemoryUpdateStats& stats);
nlohmann::json AdaptWaveJson(const AdaptWave& wave);

}  // namespace adaexplore
