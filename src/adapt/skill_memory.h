#pragma once

// SkillMemory: the rules the adapt stage learned from failures, in SQLite. Each rule has a count
// (how many failures support it), created/updated times, and its provenance: the failures behind
// it (task, model, error signature, where they came from). Rules at or above a count threshold
// go into the proposer, reviser and tuner prompts, most supported first, within a size cap.
//
// Text form, one rule per line, is the reference release's: "rule||count" (counts may be written
// "34.0"); a line without "||" is a rule with count 1. Import adds counts to rules already
// present (the same text), so importing a file twice doubles its counts, as merging two memories
// should.
//
// Example:
//   ASSIGN_OR_RETURN(SkillMemory memory, SkillMemory::Open("memory.sqlite"));
//   ASSIGN_OR_RETURN(ImportStats stats, memory.ImportText(text, "general_memory_v1_200.txt"));
//   ASSIGN_OR_RETURN(std::vector<std::string> rules, memory.PromptRules({.min_count = 3}));

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "store/db.h"

namespace adaexplore {

struct Rule {
  int64_t id = 0;
  std::string text;
  int64_t count = 0;
  int64_t created_at = 0;  // Unix seconds.
  int64_t updated_at = 0;
};

// One failure behind a rule.
struct RuleSupport {
  std::string task;
  std::string model;      // "provider:model" that made the failing kernel; empty if unknown.
  std::string signature;  // adapt/signature.h.
  std::string source;     // Where it came from: "run.sqlite#run 3 node 7", an imported file.
};

struct ImportStats {
  int lines = 0;    // Non-empty lines read.
  int added = 0;    // New rules.
  int merged = 0;   // Lines whose rule was already there (counts added).
  int skipped = 0;  // Malformed lines (empty rule, bad count), named in `problems`.
  std::vector<std::string> problems;
};

struct PromptRuleOptions {
  int64_t min_count = 3;
  size_t max_rules = 100;
  size_t max_chars = 12000;  // All rules together, so a large memory cannot crowd out the task.
};

class SkillMemory {
 public:
  static Result<SkillMemory> Open(const std::string& path);

  Result<ImportStats> ImportText(std::string_view text, const std::string& source);
  // Every rule as "rule||count", most supported first.
  Result<std::string> ExportText();

  // Rules with count >= min_count, most supported first (then oldest first).
  Result<std::vector<Rule>> List(int64_t min_count = 0);
  Result<Rule> Get(int64_t id);
  Result<std::vector<RuleSupport>> Support(int64_t id);

  // Adds a new rule supported by `support` (count = its size, at least 1); a rule with the same
  // text gets the support added instead. Returns the rule's id.
  Result<int64_t> AddRule(const std::string& text, const std::vector<RuleSupport>& support);
  // Adds `support` to rule `id` and raises its count by the number of failures.
  Status Reinforce(int64_t id, const std::vector<RuleSupport>& support);

  // What the prompts get: texts of the rules passing `options`, most supported first.
  Result<std::vector<std::string>> PromptRules(const PromptRuleOptions& options);

 private:
  explicit SkillMemory(Db db) : db_(std::move(db)) {}
  Status AddSupport(int64_t id, const std::vector<RuleSupport>& support, int64_t now);
  Db db_;
};

// True when `path` is a SQLite file (by its header), so commands can take either form.
bool IsSqliteFile(const std::string& path);

}  // namespace adaexplore
