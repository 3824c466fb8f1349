#include "search/run_spec.h"

#include <fmt/format.h>

#include "core/hash.h"
#include "core/json_text.h"
#include "eval/settings.h"
#include "llm/provider.h"
#include "search/run_settings.h"
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
  nlohmann::json settings = nlohmann::json::object();  // Those stored: an older run lacks some.
  for (const Setting<RunSpec>& setting : RunSettingTable()) {
    if (const std::string name(setting.name); options.contains(name)) {
      settings[name] = options[name];
    } else if (!setting.older_runs.is_null()) {
      settings[name] = setting.older_runs;
    }
  }
  RETURN_IF_ERROR(ApplyRunSettings(settings, spec));
  RETURN_IF_ERROR(ReadOption(options, "memory_rules", spec.memory_rules));
  RETURN_IF_ERROR(ReadOption(options, "label", spec.label));
  RETURN_IF_ERROR(ReadOption(options, "base_url", spec.base_url));
  RETURN_IF_ERROR(ReadOption(options, "seed_kernels", spec.seed_kernels));
  if (options.contains("role_models")) {
    RETURN_IF_ERROR(ApplySettings(RoleModelSettingTable(), options["role_models"], spec.roles,
                                  "option 'role_models'"));
  }
  // Runs made before the search constants were stored kept only the expand ratio.
  nlohmann::json search =
      options.contains("search")
          ? options["search"]
          : nlohmann::json{{"expand_ratio", options.value("expand_ratio", 1.0)}};
  if (Status s = ApplySearchSettings(search, spec.search); !s.ok()) {
    return s.WithContext("search settings");
  }
  return Status::Ok();
}

}  // namespace

RunInfo NewRunInfo(const RunSpec& spec, const EvalProfile& profile) {
  RunInfo run{.method = std::string(SearchMethodName(spec.method)),
              .model = spec.model,
              .options = RunSettingsJson(spec)};
  run.options["search"] = SearchSettingsJson(spec.search);
  run.options["profile"] = profile.name;
  run.options["precision"] = profile.job.precision;
  run.options["eval"] = EvalSettings(profile);
  run.options["memory_rules"] = spec.memory_rules;
  if (!spec.label.empty()) {
    run.options["label"] = spec.label;
  }
  if (!spec.base_url.empty()) {
    run.options["base_url"] = spec.base_url;
  }
  if (!spec.seed_kernels.empty()) {
    run.options["seed_kernels"] = spec.seed_kernels;
  }
  if (!spec.roles.by_role.empty()) {
    run.options["role_models"] = spec.roles.by_role;
  }
  return run;
}

std::string SpecIdentity(const RunSpec& spec, const EvalProfile& profile) {
  RunInfo run = NewRunInfo(spec, profile);
  run.options.erase("label");
  run.options.erase("steps");
  run.options.erase("base_url");  // Where the model is served does not make another run.
  run.options["model"] = run.model;
  return Sha256Hex(JsonText(run.options)).substr(0, 12);
}

Result<ModelSpec> ModelOf(const RunSpec& spec, LlmRole role) {
  return ParseModelSpec(spec.roles.For(role, spec.model));
}

Result<std::map<LlmRole, ModelSpec>> RoleModelSpecs(const RunSpec& spec) {
  std::map<LlmRole, ModelSpec> models;
  for (const auto& [name, text] : spec.roles.by_role) {
    const std::optional<LlmRole> role = LlmRoleFromName(name);
    if (!role) {
      return InvalidArgument(fmt::format("no role '{}' to give model {}", name, text));
    }
    ASSIGN_OR_RETURN(models[*role], ParseModelSpec(text));
  }
  return models;
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
