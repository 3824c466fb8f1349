#pragma once

// Turning failures into memory: one rule-writer call per cluster of failures with the same
// signature (all clusters' calls in flight at once), each rule checked (adapt/rules.h), then
// deduplicated against the memory: an identical text is reinforced outright; otherwise the
// judge is asked only when a cheap word-overlap prefilter finds similar rules, and a duplicate
// (confidence above the threshold) reinforces the matched rule by the cluster's size; a new
// rule enters with that count. Every failure of the cluster becomes the rule's provenance.

#include <string>
#include <vector>

#include "adapt/failures.h"
#include "adapt/skill_memory.h"
#include "core/log.h"
#include "core/result.h"
#include "llm/client.h"
#include "prompt/template.h"

namespace adaexplore {

class RulePrompts {
 public:
  // Reads rule_writer.md and rule_judge.md (and system.md) from `dir`.
  static Result<RulePrompts> Load(const std::string& dir);
  std::vector<ChatMessage> Writer(const FailureCluster& cluster) const;
  std::vector<ChatMessage> Judge(const std::string& rule,
                                 const std::vector<std::string>& candidates) const;

 private:
  std::string system_;
  std::optional<PromptTemplate> writer_, judge_;
};

struct MemoryUpdateOptions {
  ModelSpec writer_model;             // The rule writer's.
  ModelSpec judge_model;              // The judge's, who decides whether a rule repeats another.
  double duplicate_confidence = 0.5;  // The reference's threshold.
  int64_t max_output_tokens = 0;
  std::string reasoning_effort;
  Logger logger = NullLogger();
};

struct MemoryUpdateStats {
  int failures = 0;
  int clusters = 0;
  int writer_calls = 0;
  int judge_calls = 0;
  int no_guidance = 0;
  int rejected = 0;  // Rules that failed the checks; why, in `problems`.
  int added = 0;
  int reinforced = 0;
  int failed_calls = 0;  // LLM calls that errored or whose reply did not parse.
  std::vector<std::string> problems;
  MemoryUpdateStats& operator+=(const MemoryUpdateStats& other);
};

Result<MemoryUpdateStats> UpdateMemory(SkillMemory& memory, LlmClient& llm,
                                       const RulePrompts& prompts,
                                       const std::vector<FailureCluster>& clusters,
                                       const MemoryUpdateOptions& options);

}  // namespace adaexplore
