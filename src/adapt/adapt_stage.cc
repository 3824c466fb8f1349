#include "adapt/adapt_stage.h"

#include <algorithm>

#include "adapt/failures.h"

namespace adaexplore {

Result<AdaptOutcome> RunAdaptWaves(SearchSession& session, LlmClient& llm, SkillMemory& memory,
                                   const RulePrompts& rule_prompts, const AdaptOptions& options,
                                   const AdaptObserver& observer) {
  AdaptOutcome outcome;
  const std::vector<SourceFile>& tasks = options.tasks;
  const size_t wave_size = std::max<size_t>(1, options.parallel);
  const size_t wave_count = (tasks.size() + wave_size - 1) / wave_size;
  for (size_t start = 0; start < tasks.size(); start += wave_size) {
    const size_t end = std::min(tasks.size(), start + wave_size);
    const std::vector<SourceFile> wave_tasks(tasks.begin() + static_cast<long>(start),
                                             tasks.begin() + static_cast<long>(end));
    RunSpec spec = options.base;
    ASSIGN_OR_RETURN(spec.memory_rules, memory.PromptRules({.min_count = options.min_count}));
    AdaptWave wave{.number = outcome.waves.size() + 1,
                   .count = wave_count,
                   .rules_in_prompts = spec.memory_rules.size()};
    for (const SourceFile& task : wave_tasks) {
      wave.tasks.push_back(task.path);
    }
    if (observer.on_wave_start) {
      observer.on_wave_start(wave);
    }
    ASSIGN_OR_RETURN(const RunOutcome run,
                     observer.run ? observer.run(session, llm, spec, wave_tasks)
                                  : session.Start(spec, wave_tasks, llm, RunObserver{}));
    wave.run = run.run_id;
    ASSIGN_OR_RETURN(const nlohmann::json summary,
                     RunSummaryJson(run, session.db(), llm, options.db_path));
    RETURN_IF_ERROR(WriteRunOutput(run, summary, options.out_dir));
    ASSIGN_OR_RETURN(
        std::vector<Failure> failures,
        ReadFailures(options.db_path,
                     {.run = run.run_id, .include_incorrect = options.include_incorrect}));
    if (observer.on_learning) {
      observer.on_learning(wave);
    }
    ASSIGN_OR_RETURN(wave.learned,
                     UpdateMemory(memory, llm, rule_prompts, ClusterFailures(std::move(failures)),
                                  {.writer_model = options.writer_model,
                                   .judge_model = options.judge_model,
                                   .max_output_tokens = spec.max_output_tokens,
                                   .reasoning_effort = spec.reasoning_effort,
                                   .logger = options.logger}));
    for (const std::string& problem : wave.learned.problems) {
      options.logger->info("memory: {}", problem);
    }
    if (observer.on_wave_done) {
      observer.on_wave_done(wave);
    }
    outcome.total += wave.learned;
    outcome.waves.push_back(std::move(wave));
    if (run.stopped) {  // Interrupted or out of budget: keep what was learned, stop here.
      outcome.stopped = true;
      break;
    }
  }
  return outcome;
}

nlohmann::json MemoryUpdateJson(const MemoryUpdateStats& s) {
  return {{"failures", s.failures},
          {"clusters", s.clusters},
          {"writer_calls", s.writer_calls},
          {"judge_calls", s.judge_calls},
          {"no_guidance", s.no_guidance},
          {"rejected", s.rejected},
          {"added", s.added},
          {"reinforced", s.reinforced},
          {"failed_calls", s.failed_calls}};
}

nlohmann::json AdaptWaveJson(const AdaptWave& wave) {
  nlohmann::json j = MemoryUpdateJson(wave.learned);
  j["run"] = wave.run;
  j["tasks"] = wave.tasks;
  j["rules_in_prompts"] = wave.rules_in_prompts;
  return j;
}

}  // namespace adaexplore
