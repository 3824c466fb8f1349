#include "config/settings_doc.h"

#include <fmt/format.h>

#include <cmath>

#include "eval/checks.h"
#include "eval/profile.h"
#include "eval/settings.h"
#include "llm/role_models.h"
#include "llm/settings.h"
#include "search/run_settings.h"
#include "search/settings.h"
#include "workers/settings.h"

namespace adaexplore {
namespace {

template <typename Target>
std::string TypeText(const Setting<Target>& s) {
  switch (s.kind) {
    case SettingKind::kBoolean:
      return "boolean";
    case SettingKind::kText:
      return "text";
    case SettingKind::kChoice: {
      std::string all;
      for (std::string_view choice : s.choices) {
        all += (all.empty() ? "" : " \\| ") + fmt::format("`{}`", choice);
      }
      return all;
    }
    case SettingKind::kInteger:
    case SettingKind::kNumber:
    case SettingKind::kIntegerList:  // "list of integers ≥ 0": the range is each item's.
      break;
  }
  const std::string kind(SettingKindName(s.kind));
  const bool low = std::isfinite(s.min);
  const bool high = std::isfinite(s.max);
  if (low && high) {
    return fmt::format("{} in {}{:g}, {:g}]", kind, s.min_exclusive ? "(" : "[", s.min, s.max);
  }
  if (low) {
    return fmt::format("{} {} {:g}", kind, s.min_exclusive ? ">" : "≥", s.min);
  }
  return kind;
}

template <typename Target>
void AddRows(const std::vector<Setting<Target>>& table, std::string_view section,
             std::string& out) {
  for (const Setting<Target>& s : table) {
    out +=
        fmt::format("| `{}` | `[{}]` | {} | {} | {} | {} | {} | {} |\n", s.name, section,
                    s.flag.empty() ? "" : fmt::format("`{}`", s.flag), TypeText(s), s.default_text,
                    s.job_option.empty() ? "" : "yes", s.fingerprint ? "yes" : "", s.help);
  }
}

// The profiles that run `check`, by name.
std::string ProfilesRunning(const IntegrityCheck& check) {
  std::string names;
  for (std::string_view name : ProfileNames()) {
    Result<EvalProfile> profile = ProfileByName(name);
    if (profile.ok() && CheckApplies(check, *profile)) {
      names += (names.empty() ? "" : ", ") + std::string(name);
    }
  }
  return names;
}

}  // namespace

std::string ChecksMarkdown() {
  std::string out =
      "| check | looks at | rejects kernels that | why | profiles |\n|---|---|---|---|---|\n";
  for (const IntegrityCheck& check : IntegrityChecks()) {
    out += fmt::format(
        "| `{}` | {} | {} | {} | {} |\n", check.name,
        check.kind == CheckKind::kSourceRule ? "the source, and what it did" : "the run",
        check.catches, check.why, ProfilesRunning(check));
  }
  return out;
}

std::string SettingsMarkdown() {
  std::string out =
      "| setting | section | flag | type | default | a job option | keys the cache | "
      "meaning |\n|---|---|---|---|---|---|---|---|\n";
  AddRows(EvalSettingTable(), "eval", out);
  AddRows(WorkerSettingTable(), "workers", out);
  AddRows(SearchSettingTable(), "search", out);
  AddRows(RunSettingTable(), "run", out);
  AddRows(LlmSettingTable(), "llm", out);
  AddRows(RoleModelSettingTable(), "llm.roles", out);
  AddRows(ProviderSettingTable(), "llm.PROVIDER", out);
  AddRows(PriceSettingTable(), "llm.prices.\"PROVIDER:MODEL\"", out);
  return out;
}

}  // namespace adaexplore
