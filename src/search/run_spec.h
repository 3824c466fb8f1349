#pragma once

// RunSpec: what one search run is, typed: the method, the model, the steps per task, the search's
// constants, the memory rules in its prompts. A new run stores its spec in the run database (the
// method and model in their columns, the rest with the evaluation profile in the run's options)
// and a resumed run reads it back, so it searches exactly as it started, whatever today's flags
// and config file say. `run`, `bench` and `adapt` build specs; the search session
// (search/session.h) runs them.
//
//   RunSpec spec{.method = SearchMethod::kAdaExplore, .model = "openai:gpt-5-mini", .steps = 25};
//   RunInfo row = NewRunInfo(spec, profile);          // What CreateRun stores.
//   ASSIGN_OR_RETURN(RunSpec again, RunSpecOf(row));  // The same spec.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"
#include "eval/profile.h"
#include "llm/role_models.h"
#include "prompt/prompts.h"
#include "search/policy.h"
#include "search/settings.h"
#include "store/run_db.h"

namespace adaexplore {

struct RunSpec {
  SearchMethod method = SearchMethod::kAdaExplore;
  std::string model;  // "provider:model".
  RoleModels roles;   // Roles given another model than `model` (llm/role_models.h).
  KernelLanguage language = KernelLanguage::kTriton;
  int steps = 50;  // Kernels per task.
  uint64_t seed = 0;
  bool reviser = true;  // Small steps ask a reviser before the tuner (the reference's default).
  SearchSettings search;
  // A kernel that would be a task's new best is measured again on another worker first.
  bool confirm_best = false;
  // A kernel correct at the task's sizes only (wrong at another size set: eval/size_checks.h)
  // may be a task's best. Off: it keeps its speedup and reward, ranks below every kernel correct
  // at the other sizes too, and a best that is one is not counted (kSizesOnlyBest).
  bool size_specific_best = false;
  // A kernel that would be a task's new best is run under compute-sanitizer first (after its
  // second measurement with confirm_best; eval/sanitizer.h): errors it finds, or a call it cannot
  // finish, keep it from being the best (it keeps its reward; a best that is one is not counted,
  // kUnsafeBest). A worker without the tool runs none, and the result says so.
  bool sanitize_best = true;
  // Above 0: a task whose best kernel reaches this fraction of the speed of light stops, and its
  // remaining steps go to the tasks furthest from it (search/sol_budget.h). 0: the paper's
  // protocol, every task its steps.
  double stop_at_sol = 0;
  // Steps of one task in flight at once (docs/search.md); 1: the reference's protocol, each step
  // seeing every earlier result.
  int in_flight = 1;
  // Most tasks with steps in flight at once (0: every task): a task, once started, keeps its place
  // until it has none in flight, so tasks x in_flight stays within an endpoint's limits.
  int max_tasks = 0;
  std::string reasoning_effort;   // Empty: the provider's default.
  int64_t max_output_tokens = 0;  // Per LLM call; 0: the provider's default.
  std::vector<std::string> memory_rules;
  // The user's own kernels to start from, by task name (run --seed-kernel): each such task's
  // first node is its seed, evaluated as any candidate; the search improves from it.
  std::map<std::string, std::string> seed_kernels;
  std::string label;  // Free text; bench finds its runs again by it.
  // The LLM endpoint the run started with (never its key): a resume goes there again unless the
  // user names another. Empty: a provider with no endpoint (replay), or a run of an older version.
  std::string base_url;
};

// The model `role` calls in a run of `spec`: its own (spec.roles), else the run's.
Result<ModelSpec> ModelOf(const RunSpec& spec, LlmRole role);

// spec.roles parsed: the roles given a model of their own, each with it.
Result<std::map<LlmRole, ModelSpec>> RoleModelSpecs(const RunSpec& spec);

// The run row that stores a new run of `spec` judged under `profile`: the spec, the profile's
// name, precision and every evaluation setting (eval/settings.h).
RunInfo NewRunInfo(const RunSpec& spec, const EvalProfile& profile);

// What a run of `spec` under `profile` stores, hashed, without what a bench names on its own
// (the method, the step budget, the label): two bench runs with the same identity are the same
// run. Made from NewRunInfo, so a field the run stores is in it without being listed again.
std::string SpecIdentity(const RunSpec& spec, const EvalProfile& profile);

// The spec a stored run was started with. A field that a run made by an older version lacks
// takes the value that version used (the search constants of a run that stored only its
// expand_ratio, say). A malformed value is an error naming the run and the field.
Result<RunSpec> RunSpecOf(const RunInfo& run);

}  // namespace adaexplore
