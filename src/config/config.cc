#include "config/config.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "config/llm_config.h"
#include "config/toml_settings.h"
#include "core/closest.h"
#include "eval/settings.h"
#include "search/run_settings.h"
#include "sys/fs.h"

namespace adaexplore {
namespace {

// The keys of each section: [eval] and [search] hold their settings tables (eval/settings.h,
// search/settings.h) and one key each that is no setting of a profile or a search.
template <typename Target>
std::set<std::string> Names(const std::vector<Setting<Target>>& table, std::string extra) {
  std::set<std::string> names;
  if (!extra.empty()) {
    names.insert(std::move(extra));
  }
  for (const Setting<Target>& s : table) {
    names.insert(std::string(s.name));
  }
  return names;
}

const std::map<std::string, std::set<std::string>>& KnownKeys() {
  static const std::map<std::string, std::set<std::string>> keys = {
      {"eval", Names(EvalSettingTable(), "profile")},
      {"workers", Names(WorkerSettingTable(), "")},
      {"cache", {"enabled", "path"}},
      {"log", {"level"}},
      {"search", Names(SearchSettingTable(), "prompts_dir")},
      {"run", Names(RunSettingTable(), "")},
  };
  return keys;
}

// A key of [section] that another section knows (judge_threads under [eval], where it was
// until it moved to [workers]) is told where it belongs.
Status RefuseMisplacedKeys(const toml::table& table, const std::string& section,
                           const std::string& origin) {
  for (const auto& [key, value] : table) {
    const std::string name(key.str());
    if (KnownKeys().at(section).contains(name)) {
      continue;
    }
    for (const auto& [other, keys] : KnownKeys()) {
      if (keys.contains(name)) {
        return InvalidArgument(fmt::format("{}: [{}] {}: it is a setting of [{}]; move it there",
                                           origin, section, name, other));
      }
    }
  }
  return Status::Ok();
}

Status CheckKeys(const toml::table& root, const std::string& origin) {
  for (const auto& [section, node] : root) {
    const std::string name(section.str());
    if (name == "llm") {
      continue;  // Checked by ApplyLlmConfig, which knows its nested tables.
    }
    auto known = KnownKeys().find(name);
    if (known == KnownKeys().end() || !node.is_table()) {
      std::vector<std::string> sections = {"llm"};
      for (const auto& [section_name, keys] : KnownKeys()) {
        sections.push_back(section_name);
      }
      return InvalidArgument(origin + ": unknown section [" + name + "]" +
                             DidYouMeanSuffix(name, sections));
    }
    RETURN_IF_ERROR(RefuseMisplacedKeys(*node.as_table(), name, origin));
    RETURN_IF_ERROR(RefuseUnknownKeys(*node.as_table(), known->second, "[" + name + "]", origin));
  }
  return Status::Ok();
}

template <typename T>
Status Read(const toml::table& root, const char* section, const char* key,
            const std::string& origin, T& out) {
  const toml::node* node = root.at_path(std::string(section) + "." + key).node();
  if (node == nullptr) {
    return Status::Ok();
  }
  std::optional<T> value = node->value<T>();
  if (!value) {
    return InvalidArgument(origin + ": [" + section + "] " + key + " has the wrong type");
  }
  out = *value;
  return Status::Ok();
}

// The settings of `table` that [section] holds (config/toml_settings.h).
template <typename Target>
Result<nlohmann::json> CollectSettings(const toml::table& root, const char* section,
                                       const std::vector<Setting<Target>>& table,
                                       const std::string& origin) {
  const toml::table* values = root.get_as<toml::table>(section);
  if (values == nullptr) {
    return nlohmann::json::object();
  }
  return TomlSettings(*values, table, fmt::format("[{}]", section), origin);
}

Status ApplyEval(const toml::table& root, const std::string& origin, Config& config) {
  std::string profile_name = config.profile.name;
  RETURN_IF_ERROR(Read(root, "eval", "profile", origin, profile_name));
  if (profile_name != config.profile.name) {
    Result<EvalProfile> profile = ProfileByName(profile_name);
    if (!profile.ok()) {
      return profile.status().WithContext(origin);
    }
    config.profile = *profile;
  }
  ASSIGN_OR_RETURN(nlohmann::json settings,
                   CollectSettings(root, "eval", EvalSettingTable(), origin));
  if (Status s = ApplyEvalSettings(settings, config.profile); !s.ok()) {
    return s.WithContext(origin + ": [eval]");
  }
  config.eval_file.update(settings);
  return Status::Ok();
}

// [search]: the prompts folder and the search's constants (search/settings.h).
Status ApplySearch(const toml::table& root, const std::string& origin, Config& config) {
  RETURN_IF_ERROR(Read(root, "search", "prompts_dir", origin, config.prompts_dir));
  ASSIGN_OR_RETURN(nlohmann::json settings,
                   CollectSettings(root, "search", SearchSettingTable(), origin));
  if (Status s = ApplySearchSettings(settings, config.search); !s.ok()) {
    return s.WithContext(origin + ": [search]");
  }
  config.search_file.update(settings);
  return Status::Ok();
}

// [run]: the settings of new runs (search/run_settings.h), applied when a run's spec is made.
Status ApplyRun(const toml::table& root, const std::string& origin, Config& config) {
  ASSIGN_OR_RETURN(nlohmann::json settings,
                   CollectSettings(root, "run", RunSettingTable(), origin));
  RunSpec checked;
  if (Status s = ApplyRunSettings(settings, checked); !s.ok()) {
    return s.WithContext(origin + ": [run]");
  }
  config.run_file.update(settings);
  return Status::Ok();
}

// [workers]: where evaluations run (workers/settings.h).
Status ApplyWorkers(const toml::table& root, const std::string& origin, Config& config) {
  ASSIGN_OR_RETURN(nlohmann::json settings,
                   CollectSettings(root, "workers", WorkerSettingTable(), origin));
  if (Status s = ApplyWorkerSettings(settings, config.workers); !s.ok()) {
    return s.WithContext(origin + ": [workers]");
  }
  if (settings.contains("gpus")) {
    config.gpus_origin = origin + ": [workers] gpus";
  }
  return Status::Ok();
}

}  // namespace

Status ApplyConfigText(std::string_view text, const std::string& origin, Config& config) {
  toml::table root;
  try {
    root = toml::parse(text, origin);  // Debian's toml++ is built with exceptions.
  } catch (const toml::parse_error& e) {
    return ParseError(origin + ":" + std::to_string(e.source().begin.line) + ": " +
                      std::string(e.description()));
  }
  RETURN_IF_ERROR(CheckKeys(root, origin));
  RETURN_IF_ERROR(ApplyEval(root, origin, config));
  RETURN_IF_ERROR(ApplyWorkers(root, origin, config));
  RETURN_IF_ERROR(ApplyLlmConfig(root, origin, config.llm));
  RETURN_IF_ERROR(Read(root, "cache", "enabled", origin, config.cache_enabled));
  RETURN_IF_ERROR(Read(root, "cache", "path", origin, config.cache_path));
  RETURN_IF_ERROR(Read(root, "log", "level", origin, config.log_level));
  RETURN_IF_ERROR(ApplySearch(root, origin, config));
  RETURN_IF_ERROR(ApplyRun(root, origin, config));
  return Status::Ok();
}

Status LoadConfigFile(const std::string& path, bool required, Config& config) {
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) {
    if (!required && text.status().code() == StatusCode::kNotFound) {
      return Status::Ok();
    }
    return text.status().WithContext("reading configuration");
  }
  return ApplyConfigText(*text, path, config);
}

}  // namespace adaexplore
