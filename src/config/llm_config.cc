#include "config/llm_config.h"

#include <set>

namespace adaexplore {
namespace {

// The [llm] keys, and one table per provider with an HTTP side (llm/provider_registry.h).
std::set<std::string> TopKeys() {
  std::set<std::string> keys = {
      "model",        "max_attempts", "initial_backoff_s",    "max_backoff_s", "max_retry_after_s",
      "max_reply_mb", "budget_usd",   "budget_tokens",        "cache",         "cache_path",
      "record",       "prices",       "max_failures_in_a_row"};
  for (const auto& [name, settings] : DefaultProviderSettings()) {
    keys.insert(name);
  }
  return keys;
}
const std::set<std::string> kProviderKeys = {
    "base_url",          "api_key_env",       "concurrency",     "timeout_s",
    "connect_timeout_s", "max_output_tokens", "max_tokens_field"};
const std::set<std::string> kPriceKeys = {"input_per_mtok", "cached_input_per_mtok",
                                          "output_per_mtok"};

Status CheckTable(const toml::table& table, const std::set<std::string>& known,
                  const std::string& where, const std::string& origin) {
  for (const auto& [key, value] : table) {
    if (!known.contains(std::string(key.str()))) {
      return InvalidArgument(origin + ": unknown key '" + std::string(key.str()) + "' in " + where);
    }
  }
  return Status::Ok();
}

template <typename T>
Status Get(const toml::table& table, const char* key, const std::string& where,
           const std::string& origin, T& out) {
  const toml::node* node = table.get(key);
  if (node == nullptr) {
    return Status::Ok();
  }
  std::optional<T> value = node->value<T>();
  if (!value) {
    return InvalidArgument(origin + ": " + where + " " + key + " has the wrong type");
  }
  out = *value;
  return Status::Ok();
}

Status ApplyProvider(const toml::table& table, const std::string& name, const std::string& origin,
                     ProviderSettings& settings) {
  const std::string where = "[llm." + name + "]";
  if (table.contains("api_key")) {
    return InvalidArgument(origin + ": " + where +
                           " takes no key, only the name of the variable that holds it: set "
                           "api_key_env (keys in files end up in backups and repositories)");
  }
  RETURN_IF_ERROR(CheckTable(table, kProviderKeys, where, origin));
  settings.name = name;
  int64_t concurrency = settings.concurrency;
  RETURN_IF_ERROR(Get(table, "base_url", where, origin, settings.base_url));
  RETURN_IF_ERROR(Get(table, "api_key_env", where, origin, settings.api_key_env));
  RETURN_IF_ERROR(Get(table, "concurrency", where, origin, concurrency));
  RETURN_IF_ERROR(Get(table, "timeout_s", where, origin, settings.timeout_s));
  RETURN_IF_ERROR(Get(table, "connect_timeout_s", where, origin, settings.connect_timeout_s));
  RETURN_IF_ERROR(Get(table, "max_output_tokens", where, origin, settings.max_output_tokens));
  RETURN_IF_ERROR(Get(table, "max_tokens_field", where, origin, settings.max_tokens_field));
  if (concurrency < 1 || concurrency > 4096) {
    return InvalidArgument(origin + ": " + where + " concurrency must be 1..4096");
  }
  settings.concurrency = static_cast<int>(concurrency);
  return Status::Ok();
}

Status ApplyPrices(const toml::table& prices, const std::string& origin, PriceTable& table) {
  for (const auto& [model, node] : prices) {
    const std::string where = "[llm.prices.\"" + std::string(model.str()) + "\"]";
    const toml::table* entry = node.as_table();
    if (entry == nullptr) {
      return InvalidArgument(origin + ": " + where + " must be a table");
    }
    RETURN_IF_ERROR(CheckTable(*entry, kPriceKeys, where, origin));
    Price price;
    RETURN_IF_ERROR(Get(*entry, "input_per_mtok", where, origin, price.input_per_mtok));
    RETURN_IF_ERROR(
        Get(*entry, "cached_input_per_mtok", where, origin, price.cached_input_per_mtok));
    RETURN_IF_ERROR(Get(*entry, "output_per_mtok", where, origin, price.output_per_mtok));
    if (!entry->contains("cached_input_per_mtok")) {
      price.cached_input_per_mtok = price.input_per_mtok;  // No discount unless one is given.
    }
    if (price.input_per_mtok < 0 || price.cached_input_per_mtok < 0 || price.output_per_mtok < 0) {
      return InvalidArgument(origin + ": " + where + " prices must be >= 0");
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
  const std::string where = "[llm]";
  RETURN_IF_ERROR(CheckTable(*llm, TopKeys(), where, origin));
  int64_t max_attempts = options.retry.max_attempts;
  double max_reply_mb = static_cast<double>(options.max_reply_bytes) / (1 << 20);
  int64_t max_failures = options.max_failures_in_a_row;
  RETURN_IF_ERROR(Get(*llm, "model", where, origin, options.model));
  RETURN_IF_ERROR(Get(*llm, "max_attempts", where, origin, max_attempts));
  RETURN_IF_ERROR(Get(*llm, "initial_backoff_s", where, origin, options.retry.initial_backoff_s));
  RETURN_IF_ERROR(Get(*llm, "max_backoff_s", where, origin, options.retry.max_backoff_s));
  RETURN_IF_ERROR(Get(*llm, "max_retry_after_s", where, origin, options.retry.max_retry_after_s));
  RETURN_IF_ERROR(Get(*llm, "max_reply_mb", where, origin, max_reply_mb));
  RETURN_IF_ERROR(Get(*llm, "max_failures_in_a_row", where, origin, max_failures));
  RETURN_IF_ERROR(Get(*llm, "budget_usd", where, origin, options.budget.max_usd));
  RETURN_IF_ERROR(Get(*llm, "budget_tokens", where, origin, options.budget.max_tokens));
  RETURN_IF_ERROR(Get(*llm, "cache", where, origin, options.cache_enabled));
  RETURN_IF_ERROR(Get(*llm, "cache_path", where, origin, options.cache_path));
  RETURN_IF_ERROR(Get(*llm, "record", where, origin, options.record_path));
  if (max_attempts < 1 || options.retry.initial_backoff_s < 0 ||
      options.retry.max_backoff_s < options.retry.initial_backoff_s || max_reply_mb <= 0 ||
      options.budget.max_usd < 0 || options.budget.max_tokens < 0 || max_failures < 0 ||
      max_failures > 1000000) {
    return InvalidArgument(origin +
                           ": [llm] max_attempts >= 1, 0 <= initial_backoff_s <= max_backoff_s, "
                           "max_reply_mb > 0, max_failures_in_a_row >= 0 and budgets >= 0");
  }
  options.max_failures_in_a_row = static_cast<int>(max_failures);
  options.retry.max_attempts = static_cast<int>(max_attempts);
  options.max_reply_bytes = static_cast<int64_t>(max_reply_mb * (1 << 20));
  for (const auto& [provider, defaults] : DefaultProviderSettings()) {
    if (const toml::node* table = llm->get(provider)) {
      if (!table->is_table()) {
        return InvalidArgument(origin + ": [llm." + provider + "] must be a table");
      }
      RETURN_IF_ERROR(
          ApplyProvider(*table->as_table(), provider, origin, options.providers[provider]));
    }
  }
  if (const toml::node* prices = llm->get("prices")) {
    if (!prices->is_table()) {
      return InvalidArgument(origin + ": [llm.prices] must be a table");
    }
    RETURN_IF_ERROR(ApplyPrices(*prices->as_table(), origin, options.prices));
  }
  if (!options.model.empty()) {
    Result<ModelSpec> spec = ParseModelSpec(options.model);
    if (!spec.ok()) {
      return spec.status().WithContext(origin + ": [llm] model");
    }
  }
  return Status::Ok();
}

}  // namespace adaexplore
