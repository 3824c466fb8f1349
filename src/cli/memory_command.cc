#include "cli/memory_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "adapt/skill_memory.h"
#include "core/json_text.h"
#include "sys/fs.h"

namespace adaexplore {
namespace {

nlohmann::json RuleJson(const Rule& rule) {
  return {{"id", rule.id},
          {"text", rule.text},
          {"count", rule.count},
          {"created_at", rule.created_at},
          {"updated_at", rule.updated_at}};
}

Result<int> List(SkillMemory& memory, const MemoryFlags& f) {
  ASSIGN_OR_RETURN(std::vector<Rule> rules, memory.List(f.min_count));
  if (f.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const Rule& rule : rules) {
      out.push_back(RuleJson(rule));
    }
    std::printf("%s\n", JsonText(out).c_str());
    return 0;
  }
  for (const Rule& rule : rules) {
    std::printf("%s\n", rule.text.c_str());
  }
  return 0;
}

Result<int> Show(SkillMemory& memory, const MemoryFlags& f) {
  ASSIGN_OR_RETURN(Rule rule, memory.Get(f.rule_id));
  ASSIGN_OR_RETURN(std::vector<RuleSupport> support, memory.Support(f.rule_id));
  if (f.json) {
    nlohmann::json out = RuleJson(rule);
    out["support"] = nlohmann::json::array();
    for (const RuleSupport& s : support) {
      out["support"].push_back(
          {{"task", s.task}, {"model", s.model}, {"signature", s.signature}, {"source", s.source}});
    }
    std::printf("%s\n", JsonText(out).c_str());
    return 0;
  }
  std::printf("rule %lld (count %lld): %s\n", static_cast<long long>(rule.id),
              static_cast<long long>(rule.count), rule.text.c_str());
  for (const RuleSupport& s : support) {
    std::printf("  %s%s%s%s\n", s.source.c_str(),
                s.task.empty() ? "" : ("  task " + s.task).c_str(),
                s.model.empty() ? "" : ("  model " + s.model).c_str(),
                s.signature.empty() ? "" : ("\n      " + s.signature).c_str());
  }
  return 0;
}

Result<int> Import(SkillMemory& memory, const MemoryFlags& f) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(f.file));
  ASSIGN_OR_RETURN(ImportStats stats,
                   memory.ImportText(text, std::filesystem::path(f.file).filename().string()));
  std::printf("imported %s: %d rules read, %d new, %d merged into existing ones, %d skipped\n",
              f.file.c_str(), stats.lines - stats.skipped, stats.added, stats.merged,
              stats.skipped);
  for (const std::string& problem : stats.problems) {
    (void)std::fprintf(stderr, "  skipped %s\n", problem.c_str());
  }
  return 0;
}

Result<int> Export(SkillMemory& memory, const MemoryFlags& f) {
  ASSIGN_OR_RETURN(std::string text, memory.ExportText());
  if (f.out_path.empty()) {
    (void)std::fputs(text.c_str(), stdout);
    return 0;
  }
  RETURN_IF_ERROR(WriteFileAtomic(f.out_path, text));
  return 0;
}

Result<int> Stats(SkillMemory& memory, const MemoryFlags& f) {
  ASSIGN_OR_RETURN(std::vector<Rule> rules, memory.List(0));
  std::map<int64_t, int> histogram;
  int64_t failures = 0;
  std::set<std::string> tasks, models;
  int learned = 0;
  for (const Rule& rule : rules) {
    ++histogram[rule.count];
    ASSIGN_OR_RETURN(std::vector<RuleSupport> support, memory.Support(rule.id));
    bool from_failures = false;
    for (const RuleSupport& s : support) {
      if (s.task.empty()) {
        continue;  // An imported line.
      }
      from_failures = true;
      ++failures;
      tasks.insert(s.task);
      if (!s.model.empty()) {
        models.insert(s.model);
      }
    }
    learned += from_failures;
  }
  auto at_least = [&](int64_t k) {
    return std::count_if(rules.begin(), rules.end(), [k](const Rule& r) { return r.count >= k; });
  };
  if (f.json) {
    nlohmann::json h = nlohmann::json::object();
    for (const auto& [count, n] : histogram) {
      h[std::to_string(count)] = n;
    }
    std::printf(
        "%s\n",
        JsonText(nlohmann::json{{"rules", rules.size()},
                                {"rules_at_3", at_least(3)},
                                {"learned_rules", learned},
                                {"supporting_failures", failures},
                                {"tasks", tasks.size()},
                                {"models", std::vector<std::string>(models.begin(), models.end())},
                                {"count_histogram", h}})
            .c_str());
    return 0;
  }
  std::printf(
      "%zu rules, %ld at count >= 3 (what prompts get by default), %d learned from "
      "%lld failures over %zu tasks\n",
      rules.size(), static_cast<long>(at_least(3)), learned, static_cast<long long>(failures),
      tasks.size());
  std::string line = "counts:";
  for (const auto& [count, n] : histogram) {
    line += fmt::format(" {}x{}", n, count);
  }
  std::printf("%s\n", line.c_str());
  return 0;
}

}  // namespace

MemoryCommands AddMemoryCommand(CLI::App& app, MemoryFlags& f) {
  CLI::App* memory = app.add_subcommand("memory", "Inspect, import and export a skill memory");
  memory->require_subcommand(1);
  MemoryCommands c;
  auto add = [&](const char* name, const char* help) {
    CLI::App* sub = memory->add_subcommand(name, help);
    sub->add_option("--memory", f.memory_path, "Skill memory (SQLite)")->required();
    return sub;
  };
  c.list = add("list", "The rules, one per line, most supported first");
  c.list->add_option("--min-count", f.min_count, "Only rules with at least this count");
  c.list->add_flag("--json", f.json, "One JSON array of rules");
  c.show = add("show", "One rule and the failures behind it");
  c.show->add_option("id", f.rule_id, "Rule id (from list --json)")->required();
  c.show->add_flag("--json", f.json, "One JSON object");
  c.import = add("import", "Add the rules of a rule||count text file (counts add up)");
  c.import->add_option("file", f.file, "Text file, one rule per line")->required();
  c.export_ = add("export", "Write every rule as rule||count");
  c.export_->add_option("--out", f.out_path, "File to write (default: standard output)");
  c.stats = add("stats", "Rule counts, provenance and what the prompts get");
  c.stats->add_flag("--json", f.json, "One JSON object");
  return c;
}

Result<int> RunMemory(const MemoryCommands& c, const MemoryFlags& f) {
  if (!c.import->parsed() && !std::filesystem::exists(f.memory_path)) {
    return NotFound("no skill memory at " + f.memory_path +
                    " (make one with `adaexplore memory import` or `adaexplore adapt`)");
  }
  if (std::filesystem::exists(f.memory_path) && !IsSqliteFile(f.memory_path)) {
    return InvalidArgument(f.memory_path +
                           " is not a skill memory database; to use a rule||count "
                           "text file, `adaexplore memory import` it into one");
  }
  ASSIGN_OR_RETURN(SkillMemory memory, SkillMemory::Open(f.memory_path));
  if (c.list->parsed()) {
    return List(memory, f);
  }
  if (c.show->parsed()) {
    return Show(memory, f);
  }
  if (c.import->parsed()) {
    return Import(memory, f);
  }
  if (c.export_->parsed()) {
    return Export(memory, f);
  }
  return Stats(memory, f);
}

}  // namespace adaexplore
