#pragma once

// Ledger: every LLM call's tokens, latency and cost, summed per role, per task, per model and for
// the run, and the run's budget. Thread-safe: the client's I/O thread records, anyone reads.
//
// Cost comes from a price table the user can change (config [llm.prices."provider:model"]); a
// model without a price has its tokens counted and its cost reported as unknown, never as zero.
// A budget in dollars therefore needs a price for every model the run uses (checked up front).
//
// The budget is checked before each request is sent. Calls already in flight finish and are
// counted, so a run can end above its budget by at most the calls in flight at that moment.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/mutex.h"
#include "core/result.h"
#include "llm/chat.h"

namespace adaexplore {

struct Price {
  double input_per_mtok = 0;         // Dollars per million uncached input tokens.
  double cached_input_per_mtok = 0;  // Dollars per million cached input tokens.
  // Dollars per million input tokens written to the provider's prompt cache (Anthropic: 1.25
  // times input's for its five-minute cache).
  double cache_write_per_mtok = 0;
  double output_per_mtok = 0;  // Dollars per million output tokens (reasoning included).
};

// Prices by "provider:model", falling back to the bare model name.
class PriceTable {
 public:
  void Set(const std::string& model, Price price) { prices_[model] = price; }
  std::optional<Price> Find(const ModelSpec& model) const;
  // The cost of `usage` at `price`.
  static double Cost(const Price& price, const TokenUsage& usage);

 private:
  std::map<std::string, Price> prices_;
};

struct Budget {
  double max_usd = 0;      // 0: no limit.
  int64_t max_tokens = 0;  // Input + output tokens over the run; 0: no limit.
};

enum class CallSource { kLive, kCache, kReplay };
std::string_view CallSourceName(CallSource source);

struct LedgerEntry {
  LlmRole role = LlmRole::kOther;
  std::string task;
  ModelSpec model;
  CallSource source = CallSource::kLive;
  TokenUsage usage;
  double latency_s = 0;  // Submit to reply, retries and waiting for a slot included.
  int attempts = 1;
  std::optional<double> cost_usd;  // nullopt: no price known for the model.
  bool failed = false;             // No reply in the end (tokens are then zero).
};

struct LedgerTotals {
  int64_t calls = 0;
  int64_t failed_calls = 0;
  int64_t retries = 0;  // Attempts beyond the first.
  int64_t from_cache = 0;
  int64_t input_tokens = 0;
  int64_t cached_input_tokens = 0;
  int64_t cache_write_tokens = 0;
  int64_t output_tokens = 0;
  double cost_usd = 0;         // Of the priced calls.
  int64_t unpriced_calls = 0;  // Live calls whose model has no price.
  double latency_s = 0;        // Summed.

  void Add(const LedgerEntry& entry);
  nlohmann::json ToJson() const;
};

class Ledger {
 public:
  explicit Ledger(PriceTable prices = {}, Budget budget = {})
      : prices_(std::move(prices)), budget_(budget) {}

  // Fills in the entry's cost from the price table (cache and replay hits cost nothing) and adds
  // it. Returns the entry as recorded.
  LedgerEntry Record(LedgerEntry entry);

  // Why no more requests may be sent, or nullopt while the budget lasts.
  std::optional<std::string> BudgetExhausted() const;

  // Counts spending outside this ledger toward its budget: the earlier sessions of a resumed
  // run, the earlier waves of an adapt. Not part of Total().
  void AddSpentElsewhere(double usd, int64_t tokens);

  // An error when a dollar budget is set and `model` has no price (checked before a run starts).
  Status CheckPriced(const ModelSpec& model) const;

  LedgerTotals Total() const;
  std::map<std::string, LedgerTotals> ByRole() const;
  std::map<std::string, LedgerTotals> ByTask() const;
  std::map<std::string, LedgerTotals> ByModel() const;
  std::vector<LedgerEntry> Entries() const;

  // {"total": ..., "by_role": {...}, "by_task": {...}, "by_model": {...}, "budget": {...}}.
  nlohmann::json Summary() const;

 private:
  mutable Mutex mutex_;
  PriceTable prices_;
  Budget budget_;
  std::vector<LedgerEntry> entries_ GUARDED_BY(mutex_);
  LedgerTotals total_ GUARDED_BY(mutex_);
  double elsewhere_usd_ GUARDED_BY(mutex_) = 0;
  int64_t elsewhere_tokens_ GUARDED_BY(mutex_) = 0;
};

}  // namespace adaexplore
