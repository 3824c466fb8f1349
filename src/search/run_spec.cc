#include "search/run_spec.h"

#include <fmt/format.h>

#include "core/hash.h"
#include "core/json_text.h"
#include "eval/settings.h"
#include "store/stored_json.h"

namespace adaexplore {
namespace {

// Reads options[key] into `out`, leaving it alone when the key is absent (an older run).
template <typename T>
Status ReadOption(const nlohmann::json& options, const char* key, T& out) {
  if (!options.contains(key)) {
    return Status::Ok();
  }
  try {
    out = options.at(key).get<T>();
  } catch (const nlohmann::json::exception& e) {
    return InvalidArgument(fmt::format("option '{}': {}", key, e.what()));
  }
  return Status::Ok();
}

Status ReadSpec(const RunInfo& run, RunSpec& spec) {
  std::optional<SearchMethod> method = SearchMethodFromName(run.method);
  if (!method) {
    return InvalidArgument("method must be adaexplore, ps or ir, not '" + run.method + "'");
  }
  spec.method = *method;
  spec.model = run.model;
  const nlohmann::json& options = run.options;
  std::string language = "triton";
  RETURN_IF_ERROR(ReadOption(options, "language", language));
  std::optional<KernelLanguage> parsed = KernelLanguageFromName(language);
  if (!parsed) {
    return InvalidArgument("language must be triton or cuda, not '" + language + "'");
  }
  spec.language = *parsed;
  RETURN_IF_ERROR(ReadOption(options, "steps", spec.steps));
  RETURN_IF_ERROR(ReadOption(options, "seed", spec.seed));
  RETURN_IF_ERROR(ReadOption(options, "reviser", spec.reviser));
  RETURN_IF_ERROR(ReadOption(options, "confirm_best", spec.confirm_best));
  RETURN_IF_ERROR(ReadOption(options, "reasoning_effort", spec.reasoning_effort));
  RETURN_IF_ERROR(ReadOption(options, "max_output_tokens", spec.max_output_tokens));
  RETURN_IF_ERROR(ReadOption(options, "memory_rules", spec.memory_rules));
  RETURN_IF_ERROR(ReadOption(options, "label", spec.label));
  // Runs made before the search constants were stored kept only the expand ratio.
  nlohmann::json search =
      options.contains("search")
          ? options["search"]
          : nlohmann::json{{"expand_ratio", options.value("expand_ratio", 1.0)}};
  if (Status s = ApplySearchSettings(search, spec.search); !s.ok()) {
    return s.WithContext("search settings");
  }
  if (spec.steps < 1) {
    return InvalidArgument(fmt::format("steps must be at least 1, not {}", spec.steps));
  }
  return Status::Ok();
}

}  // namespace

RunInfo NewRunInfo(const RunSpec& spec, const EvalProfile& profile) {
  RunInfo run{.method = std::string(SearchMethodName(spec.method)),
              .model = spec.model,
              .options = {{"steps", spec.steps},
                          {"seed", spec.seed},
                          {"language", KernelLanguageName(spec.language)},
                          {"reviser", spec.reviser},
                          {"search", SearchSettingsJson(spec.search)},
                          {"confirm_best", spec.confirm_best},
                          {"reasoning_effort", spec.reasoning_effort},
                          {"max_output_tokens", spec.max_output_tokens},
                          {"profile", profile.name},
                          {"precision", profile.job.precision},
                          {"eval", EvalSettings(profile)},
                          {"memory_rules", spec.memory_rules}}};
  if (!spec.label.empty()) {
    run.options["label"] = spec.label;
  }
  return run;
}

std::string SpecIdentity(const RunSpec& spec, const EvalProfile& profile) {
  RunInfo run = NewRunInfo(spec, profile);
  run.options.erase("label");
  run.options.erase("steps");
  run.options["model"] = run.model;
  return Sha256Hex(JsonText(run.options)).substr(0, 12);
}

Result<RunSpec> RunSpecOf(const RunInfo& run) {
  RunSpec spec;
  // ReadOption turns a mistyped option into an error itself; the catch is for the reads that
  // take a default (expand_ratio of an older run).
  const std::string row = RunsRow(run.id);
  RETURN_IF_ERROR(ReadStoredJson(row, "options", [&] {
    return ReadSpec(run, spec).WithContext(fmt::format("run database: {}: column 'options'", row));
  }));
  return spec;
}

}  // namespace adaexplore
