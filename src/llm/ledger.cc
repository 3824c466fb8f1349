#include "llm/ledger.h"

#include <fmt/format.h>

#include "core/saturating.h"

namespace adaexplore {
namespace {
constexpr double kPerMillion = 1e6;
}  // namespace

std::optional<Price> PriceTable::Find(const ModelSpec& model) const {
  if (auto it = prices_.find(model.ToString()); it != prices_.end()) {
    return it->second;
  }
  if (auto it = prices_.find(model.model); it != prices_.end()) {
    return it->second;
  }
  return std::nullopt;
}

double PriceTable::Cost(const Price& price, const TokenUsage& usage) {
  const int64_t plain = std::max<int64_t>(0, usage.input - usage.cached_input - usage.cache_write);
  return (static_cast<double>(plain) * price.input_per_mtok +
          static_cast<double>(usage.cached_input) * price.cached_input_per_mtok +
          static_cast<double>(usage.cache_write) * price.cache_write_per_mtok +
          static_cast<double>(usage.output) * price.output_per_mtok) /
         kPerMillion;
}

std::string_view CallSourceName(CallSource source) {
  switch (source) {
    case CallSource::kLive:
      return "live";
    case CallSource::kCache:
      return "cache";
    case CallSource::kReplay:
      return "replay";
  }
  return "unknown";
}

void LedgerTotals::Add(const LedgerEntry& entry) {
  ++calls;
  failed_calls += entry.failed ? 1 : 0;
  retries += std::max(0, entry.attempts - 1);
  from_cache += entry.source == CallSource::kCache ? 1 : 0;
  // Saturating: counts of a run resumed from an older database may be anything.
  input_tokens = SaturatingAdd(input_tokens, entry.usage.input);
  cached_input_tokens = SaturatingAdd(cached_input_tokens, entry.usage.cached_input);
  cache_write_tokens = SaturatingAdd(cache_write_tokens, entry.usage.cache_write);
  output_tokens = SaturatingAdd(output_tokens, entry.usage.output);
  if (entry.cost_usd) {
    cost_usd += *entry.cost_usd;
  } else if (entry.source == CallSource::kLive && !entry.failed) {
    ++unpriced_calls;
  }
  latency_s += entry.latency_s;
}

nlohmann::json LedgerTotals::ToJson() const {
  return {{"calls", calls},
          {"failed_calls", failed_calls},
          {"retries", retries},
          {"from_cache", from_cache},
          {"input_tokens", input_tokens},
          {"cached_input_tokens", cached_input_tokens},
          {"cache_write_tokens", cache_write_tokens},
          {"output_tokens", output_tokens},
          {"cost_usd", unpriced_calls > 0 && cost_usd == 0 ? nlohmann::json(nullptr)
                                                           : nlohmann::json(cost_usd)},
          {"unpriced_calls", unpriced_calls},
          {"mean_latency_s", calls > 0 ? latency_s / static_cast<double>(calls) : 0.0}};
}

LedgerEntry Ledger::Record(LedgerEntry entry) {
  if (entry.source != CallSource::kLive || entry.failed) {
    entry.cost_usd = 0.0;
  } else {
    if (std::optional<Price> price = prices_.Find(entry.model)) {
      entry.cost_usd = PriceTable::Cost(*price, entry.usage);
    }
  }
  MutexLock lock(mutex_);
  total_.Add(entry);
  entries_.push_back(entry);
  return entry;
}

void Ledger::AddSpentElsewhere(double usd, int64_t tokens) {
  MutexLock lock(mutex_);
  elsewhere_usd_ += usd;
  elsewhere_tokens_ = SaturatingAdd(elsewhere_tokens_, tokens);
}

std::optional<std::string> Ledger::BudgetExhausted() const {
  MutexLock lock(mutex_);
  const double usd = total_.cost_usd + elsewhere_usd_;
  if (budget_.max_usd > 0 && usd >= budget_.max_usd) {
    return fmt::format("the budget of ${:.2f} is spent (${:.4f} so far)", budget_.max_usd, usd);
  }
  const int64_t tokens =
      SaturatingAdd(SaturatingAdd(total_.input_tokens, total_.output_tokens), elsewhere_tokens_);
  if (budget_.max_tokens > 0 && tokens >= budget_.max_tokens) {
    return fmt::format("the budget of {} tokens is spent ({} so far)", budget_.max_tokens, tokens);
  }
  return std::nullopt;
}

Status Ledger::CheckPriced(const ModelSpec& model) const {
  if (budget_.max_usd > 0 && !model.replayed() && !prices_.Find(model)) {
    return InvalidArgument(fmt::format(
        "a budget in dollars needs a price for {}: add [llm.prices.\"{}\"] with input_per_mtok, "
        "cached_input_per_mtok and output_per_mtok to the config, or budget in tokens",
        model.ToString(), model.ToString()));
  }
  return Status::Ok();
}

LedgerTotals Ledger::Total() const {
  MutexLock lock(mutex_);
  return total_;
}

namespace {
template <typename KeyOf>
std::map<std::string, LedgerTotals> GroupBy(const std::vector<LedgerEntry>& entries, KeyOf key) {
  std::map<std::string, LedgerTotals> groups;
  for (const LedgerEntry& entry : entries) {
    groups[key(entry)].Add(entry);
  }
  return groups;
}
}  // namespace

std::map<std::string, LedgerTotals> Ledger::ByRole() const {
  MutexLock lock(mutex_);
  return GroupBy(entries_, [](const LedgerEntry& e) { return std::string(LlmRoleName(e.role)); });
}

std::map<std::string, LedgerTotals> Ledger::ByTask() const {
  MutexLock lock(mutex_);
  return GroupBy(entries_, [](const LedgerEntry& e) { return e.task.empty() ? "-" : e.task; });
}

std::map<std::string, LedgerTotals> Ledger::ByModel() const {
  MutexLock lock(mutex_);
  return GroupBy(entries_, [](const LedgerEntry& e) { return e.model.ToString(); });
}

std::vector<LedgerEntry> Ledger::Entries() const {
  MutexLock lock(mutex_);
  return entries_;
}

nlohmann::json Ledger::Summary() const {
  double elsewhere_usd = 0;
  int64_t elsewhere_tokens = 0;
  {
    MutexLock lock(mutex_);
    elsewhere_usd = elsewhere_usd_;
    elsewhere_tokens = elsewhere_tokens_;
  }
  auto group_json = [](const std::map<std::string, LedgerTotals>& groups) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [name, totals] : groups) {
      out[name] = totals.ToJson();
    }
    return out;
  };
  return {{"total", Total().ToJson()},
          {"by_role", group_json(ByRole())},
          {"by_task", group_json(ByTask())},
          {"by_model", group_json(ByModel())},
          {"budget",
           {{"max_usd", budget_.max_usd},
            {"max_tokens", budget_.max_tokens},
            {"spent_elsewhere_usd", elsewhere_usd},
            {"spent_elsewhere_tokens", elsewhere_tokens}}}};
}

}  // namespace adaexplore
