#include "search/run_settings.h"

#include "core/enum_json.h"
#include "prompt/prompts.h"

namespace adaexplore {
namespace {

using RunSetting = Setting<RunSpec>;

template <typename T>
RunSetting Field(RunSetting row, T RunSpec::*field) {
  BindField(row, field);
  return row;
}

std::vector<RunSetting> MakeTable() {
  RunSetting language{.name = "language",
                      .kind = SettingKind::kChoice,
                      .flag = "--language",
                      .default_text = "triton",
                      .help = "the language the LLM writes kernels in",
                      .choices = EnumNameList<KernelLanguage>()};
  BindField(language, &RunSpec::language);
  RunSetting objective{.name = "objective",
                       .kind = SettingKind::kChoice,
                       .flag = "--objective",
                       .default_text = "speedup (the paper's)",
                       .help =
                           "what a correct kernel's reward measures: its speedup, or its "
                           "fraction of the speed of light (GPU; docs/profiling.md)",
                       .choices = EnumNameList<Objective>()};
  BindRef(
      objective, [](auto& spec) -> auto& { return spec.search.rewards.objective; });
  return {
      Field({.name = "steps",
             .kind = SettingKind::kInteger,
             .flag = "--steps",
             .default_text = "50 (adapt: 25)",
             .help = "steps (kernels) per task; with run --resume, more than the run has extends "
                     "it",
             .min = 1},
            &RunSpec::steps),
      Field({.name = "seed",
             .kind = SettingKind::kInteger,
             .flag = "--seed",
             .default_text = "0",
             .help = "seed of the search's random choices (and of adapt's synthesis)",
             .min = 0},
            &RunSpec::seed),
      language,
      Field({.name = "reviser",
             .kind = SettingKind::kBoolean,
             .flag = "--reviser",
             .default_text = "true (adapt: false)",
             .help = "small steps ask a reviser before the tuner (--no-reviser: without)"},
            &RunSpec::reviser),
      Field({.name = "confirm_best",
             .kind = SettingKind::kBoolean,
             .flag = "--confirm-best",
             .default_text = "false",
             .help = "measure a task's new best again on another worker before accepting it"},
            &RunSpec::confirm_best),
      Field({.name = "size_specific_best",
             .kind = SettingKind::kBoolean,
             .flag = "--size-specific-best",
             .default_text = "false",
             .help = "a kernel correct at the task's sizes only (wrong at another size set: "
                     "--size-checks) may be a task's best; off, it keeps its speedup and reward "
                     "but ranks below every kernel correct at the other sizes too"},
            &RunSpec::size_specific_best),
      Field({.name = "sanitize_best",
             .kind = SettingKind::kBoolean,
             .flag = "--sanitize-best",
             .default_text = "true",
             .help = "run compute-sanitizer (--sanitizer-tools) on each kernel that would be a "
                     "task's new best: errors it finds, or a call it cannot finish, keep the "
                     "kernel from being the best",
             .older_runs = false},  // Made before compute-sanitizer ran on new bests.
            &RunSpec::sanitize_best),
      Field({.name = "stop_at_sol",
             .kind = SettingKind::kNumber,
             .flag = "--stop-at-sol",
             .default_text = "0 (off: the paper's protocol)",
             .help = "a task whose best kernel reaches this fraction of the speed of light "
                     "stops, its steps going to the tasks furthest from it (GPU; "
                     "docs/profiling.md)",
             .min = 0,
             .max = 1},
            &RunSpec::stop_at_sol),
      objective,
      Field({.name = "in_flight",
             .kind = SettingKind::kInteger,
             .flag = "--in-flight",
             .default_text = "1 (the reference's protocol)",
             .help = "steps of one task in flight at once; those being planned count as virtual "
                     "losses on the nodes being expanded (docs/search.md)",
             .min = 1,
             .max = 64},
            &RunSpec::in_flight),
      Field({.name = "max_tasks",
             .kind = SettingKind::kInteger,
             .flag = "--max-tasks",
             .default_text = "0 (every task at once)",
             .help = "most tasks with steps in flight at once (tasks x --in-flight LLM calls at "
                     "most, within [llm] concurrency)",
             .min = 0},
            &RunSpec::max_tasks),
      Field({.name = "reasoning_effort",
             .kind = SettingKind::kText,
             .flag = "--reasoning-effort",
             .default_text = "the provider's",
             .help = "reasoning effort of each LLM call: minimal, low, medium or high"},
            &RunSpec::reasoning_effort),
      Field({.name = "max_output_tokens",
             .kind = SettingKind::kInteger,
             .flag = "--max-output-tokens",
             .default_text = "0 (the provider's)",
             .help = "output limit of each LLM call",
             .min = 0},
            &RunSpec::max_output_tokens),
  };
}

}  // namespace

const std::vector<Setting<RunSpec>>& RunSettingTable() {
  static const std::vector<Setting<RunSpec>> table = MakeTable();
  return table;
}

nlohmann::json RunSettingsJson(const RunSpec& spec) {
  return SettingsJson(RunSettingTable(), spec);
}

Status ApplyRunSettings(const nlohmann::json& json, RunSpec& spec) {
  return ApplySettings(RunSettingTable(), json, spec, "run");
}

}  // namespace adaexplore
