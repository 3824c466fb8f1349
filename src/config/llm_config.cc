#include "config/llm_config.h"

#include <set>

#include "config/toml_settings.h"
#include "llm/role_models.h"
#include "llm/settings.h"

namespace adaexplore {
namespace {

// Reads the settings `table` declares from `toml` into `target`, all or none, refusing keys it
// does not declare besides `nested` (the tables [llm] holds).
template <typename Target>
Status ApplyTable(const toml::table& toml, const std::vector<Setting<Target>>& table,
                  const std::set<std::string>& nested, const std::string& where,
                  const std::string& origin, Target& target) {
  std::set<std::string> known = SettingNames(table);
  known.insert(nested.begin(), nested.end());
  RETURN_IF_ERROR(RefuseUnknownKeys(toml, known, where, origin));
  ASSIGN_OR_RETURN(const nlohmann::json values, TomlSettings(toml, table, where, origin));
  return ApplySettings(table, values, target, where).WithContext(origin);
}

Status ApplyProvider(const toml::table& table, const std::string& name, const std::string& origin,
                     ProviderSettings& settings) {
  const std::string where = "[llm." + name + "]";
  if (table.contains("api_key")) {
    return InvalidArgument(origin + ": " + where +
                           " takes no key, only the name of the variable that holds it: set "
                           "api_key_env (keys in files end up in backups and repositories)");
  }
  settings.name = name;
  return ApplyTable(table, ProviderSettingTable(), {}, where, origin, settings);
}

Status ApplyPrices(const toml::table& prices, const std::string& origin, PriceTable& table) {
  for (const auto& [model, node] : prices) {
    const std::string where = "[llm.prices.\"" + std::string(model.str()) + "\"]";
    const toml::table* entry = node.as_table();
    if (entry == nullptr) {
      return InvalidArgument(origin + ": " + where + " must be a table");
    }
    Price price;
    RETURN_IF_ERROR(ApplyTable(*entry, PriceSettingTable(), {}, where, origin, price));
    if (!entry->contains("cached_input_per_mtok")) {
      price.cached_input_per_mtok = price.input_per_mtok;  // No discount unless one is given.
    }
    if (!entry->contains("cache_write_per_mtok")) {
      price.cache_write_per_mtok = price.input_per_mtok;  // No surcharge unless one is given.
    }
    table.Set(std::string(model.str()), price);
  }
  return Status::Ok();
}

}  // namespace

Status ApplyLlmConfig(const toml::table& root, const std::string& origin, LlmOptions& options) {
  const toml::node* node = root.get("llm");
  if (node == nullptr) {
    return Status::Ok();
  }
  const toml::table* llm = node->as_table();
  if (llm == nullptr) {
    return InvalidArgument(origin + ": llm must be a table");
  }
  // [llm] holds its settings, one table per provider with an HTTP side
  // (llm/provider_registry.h) and the prices.
  std::set<std::string> nested = {"prices", "roles"};
  for (const auto& [name, settings] : DefaultProviderSettings()) {
    nested.insert(name);
  }
  LlmOptions changed = options;
  RETURN_IF_ERROR(ApplyTable(*llm, LlmSettingTable(), nested, "[llm]", origin, changed));
  if (changed.retry.max_backoff_s < changed.retry.initial_backoff_s) {
    return InvalidArgument(origin + ": [llm] max_backoff_s must be at least initial_backoff_s");
  }
  for (const auto& [provider, defaults] : DefaultProviderSettings()) {
    if (const toml::node* table = llm->get(provider)) {
      if (!table->is_table()) {
        return InvalidArgument(origin + ": [llm." + provider + "] must be a table");
      }
      RETURN_IF_ERROR(
          ApplyProvider(*table->as_table(), provider, origin, changed.providers[provider]));
    }
  }
  if (const toml::node* prices = llm->get("prices")) {
    if (!prices->is_table()) {
      return InvalidArgument(origin + ": [llm.prices] must be a table");
    }
    RETURN_IF_ERROR(ApplyPrices(*prices->as_table(), origin, changed.prices));
  }
  if (const toml::node* roles = llm->get("roles")) {
    if (!roles->is_table()) {
      return InvalidArgument(origin + ": [llm.roles] must be a table");
    }
    RETURN_IF_ERROR(ApplyTable(*roles->as_table(), RoleModelSettingTable(), {}, "[llm.roles]",
                               origin, changed.roles));
  }
  if (!changed.model.empty()) {
    Result<ModelSpec> spec = ParseModelSpec(changed.model);
    if (!spec.ok()) {
      return spec.status().WithContext(origin + ": [llm] model");
    }
  }
  options = std::move(changed);
  return Status::Ok();
}

}  // namespace adaexplore
