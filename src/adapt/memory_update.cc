#include "adapt/memory_update.h"

#include <fmt/format.h>

#include <set>

#include "adapt/rules.h"
#include "sys/fs.h"

namespace adaexplore {
namespace {

constexpr size_t kMaxKernelChars = 12000;
constexpr size_t kMaxErrorChars = 3000;

std::string Tail(const std::string& text, size_t max_chars) {
  return text.size() <= max_chars ? text : "..." + text.substr(text.size() - max_chars);
}

std::string Head(const std::string& text, size_t max_chars) {
  return text.size() <= max_chars ? text : text.substr(0, max_chars) + "\n# ... (cut)";
}

std::vector<RuleSupport> SupportOf(const FailureCluster& cluster) {
  std::vector<RuleSupport> support;
  for (const Failure& f : cluster.failures) {
    support.push_back(
        {.task = f.task, .model = f.model, .signature = f.signature, .source = f.source});
  }
  return support;
}

}  // namespace

Result<RulePrompts> RulePrompts::Load(const std::string& dir) {
  RulePrompts prompts;
  ASSIGN_OR_RETURN(prompts.system_, ReadFile(dir + "/system.md"));
  ASSIGN_OR_RETURN(std::string writer, ReadFile(dir + "/rule_writer.md"));
  ASSIGN_OR_RETURN(prompts.writer_,
                   PromptTemplate::Parse(writer, dir + "/rule_writer.md",
                                         {"signature", "count", "tasks", "kernel", "error"}));
  ASSIGN_OR_RETURN(std::string judge, ReadFile(dir + "/rule_judge.md"));
  ASSIGN_OR_RETURN(prompts.judge_,
                   PromptTemplate::Parse(judge, dir + "/rule_judge.md", {"rule", "rules"}));
  return prompts;
}

std::vector<ChatMessage> RulePrompts::Writer(const FailureCluster& cluster) const {
  std::set<std::string> tasks;
  for (const Failure& f : cluster.failures) {
    tasks.insert(f.task);
  }
  const Failure& first = cluster.failures.front();
  return {{.role = "system", .content = system_},
          {.role = "user",
           .content = writer_->Render({{"signature", cluster.signature},
                                       {"count", std::to_string(cluster.failures.size())},
                                       {"tasks", std::to_string(tasks.size())},
                                       {"kernel", Head(first.kernel, kMaxKernelChars)},
                                       {"error", Tail(first.error, kMaxErrorChars)}})}};
}

std::vector<ChatMessage> RulePrompts::Judge(const std::string& rule,
                                            const std::vector<std::string>& candidates) const {
  std::string list;
  for (size_t i = 0; i < candidates.size(); ++i) {
    list += fmt::format("{}. {}\n", i + 1, candidates[i]);
  }
  return {{.role = "system", .content = system_},
          {.role = "user", .content = judge_->Render({{"rule", rule}, {"rules", list}})}};
}

MemoryUpdateStats& MemoryUpdateStats::operator+=(const MemoryUpdateStats& o) {
  failures += o.failures;
  clusters += o.clusters;
  writer_calls += o.writer_calls;
  judge_calls += o.judge_calls;
  no_guidance += o.no_guidance;
  rejected += o.rejected;
  added += o.added;
  reinforced += o.reinforced;
  failed_calls += o.failed_calls;
  problems.insert(problems.end(), o.problems.begin(), o.problems.end());
  return *this;
}

Result<MemoryUpdateStats> UpdateMemory(SkillMemory& memory, LlmClient& llm,
                                       const RulePrompts& prompts,
                                       const std::vector<FailureCluster>& clusters,
                                       const MemoryUpdateOptions& options) {
  MemoryUpdateStats stats;
  stats.clusters = static_cast<int>(clusters.size());
  auto request = [&](LlmRole role, std::vector<ChatMessage> messages, const std::string& task,
                     int64_t sample) {
    return ChatRequest{
        .model = role == LlmRole::kJudge ? options.judge_model : options.writer_model,
        .messages = std::move(messages),
        .max_output_tokens = options.max_output_tokens,
        .reasoning_effort = options.reasoning_effort,
        .sample = sample,
        .role = role,
        .task = task};
  };
  // Every cluster's writer call at once; the judge calls after, one at a time, because each
  // decision changes the memory the next one is judged against.
  std::vector<uint64_t> ids;
  for (size_t i = 0; i < clusters.size(); ++i) {
    stats.failures += static_cast<int>(clusters[i].failures.size());
    ids.push_back(llm.Submit(request(LlmRole::kRuleWriter, prompts.Writer(clusters[i]),
                                     clusters[i].failures.front().task, static_cast<int64_t>(i))));
    ++stats.writer_calls;
  }
  for (size_t i = 0; i < clusters.size(); ++i) {
    const FailureCluster& cluster = clusters[i];
    LlmCompletion completion = llm.Wait(ids[i]);
    if (completion.error) {
      if (completion.error->kind == LlmErrorKind::kAuth ||
          completion.error->kind == LlmErrorKind::kUnreachable ||
          completion.error->kind == LlmErrorKind::kBudget) {
        return Unavailable("rule writer: " + completion.error->message);
      }
      ++stats.failed_calls;
      stats.problems.push_back(
          fmt::format("rule writer for '{}': {}", cluster.signature, completion.error->message));
      continue;
    }
    Result<std::optional<std::string>> parsed = ParseRuleReply(completion.reply->text);
    if (!parsed.ok()) {
      ++stats.failed_calls;
      stats.problems.push_back(
          fmt::format("rule writer for '{}': {}", cluster.signature, parsed.status().message()));
      continue;
    }
    if (!parsed->has_value()) {
      ++stats.no_guidance;
      continue;
    }
    const std::string rule = **parsed;
    std::vector<std::string> programs;
    for (const Failure& f : cluster.failures) {
      programs.push_back(f.kernel);
    }
    if (std::string problem = RuleProblem(rule, programs); !problem.empty()) {
      ++stats.rejected;
      stats.problems.push_back(fmt::format("rejected \"{}\": {}", rule, problem));
      continue;
    }
    ASSIGN_OR_RETURN(std::vector<Rule> existing, memory.List(0));
    std::vector<std::string> texts;
    for (const Rule& r : existing) {
      texts.push_back(r.text);
    }
    const std::vector<RuleSupport> support = SupportOf(cluster);
    if (auto same = std::find(texts.begin(), texts.end(), rule); same != texts.end()) {
      RETURN_IF_ERROR(memory.Reinforce(existing[same - texts.begin()].id, support));
      ++stats.reinforced;
      continue;
    }
    const std::vector<size_t> similar = SimilarRules(rule, texts);
    if (!similar.empty()) {
      std::vector<std::string> candidates;
      for (size_t index : similar) {
        candidates.push_back(texts[index]);
      }
      ++stats.judge_calls;
      LlmCompletion judged =
          llm.Call(request(LlmRole::kJudge, prompts.Judge(rule, candidates),
                           cluster.failures.front().task, static_cast<int64_t>(i)));
      Result<JudgeVerdict> verdict = judged.error
                                         ? Result<JudgeVerdict>(Unavailable(judged.error->message))
                                         : ParseJudgeReply(judged.reply->text, candidates.size());
      if (!verdict.ok()) {
        // Unjudged, the rule is kept as new: a duplicate costs a line, a lost rule costs more.
        ++stats.failed_calls;
        stats.problems.push_back("judge: " + verdict.status().message());
      } else if (verdict->duplicate && verdict->confidence > options.duplicate_confidence) {
        const Rule& matched = existing[similar[static_cast<size_t>(verdict->matched_index - 1)]];
        RETURN_IF_ERROR(memory.Reinforce(matched.id, support));
        ++stats.reinforced;
        continue;
      }
    }
    RETURN_IF_ERROR(memory.AddRule(rule, support).status());
    ++stats.added;
    options.logger->info("memory: new rule ({} failures): {}", support.size(), rule);
  }
  return stats;
}

}  // namespace adaexplore
