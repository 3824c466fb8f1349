#pragma once

// Every integrity check, declared once: its name, what it looks at, what it catches and why that
// rejects, and the profile switch that turns it on. Everything else reads this table: a profile's
// defaults (reject_static), the verdict rules in classify.cc (a rejection names its check), the
// list of checks in docs/eval.md and the rules a prompt states (config/settings_doc.h,
// prompt/prompts.cc), and the worker's tests (tests/golden/protocol/rules.json holds the names
// of the source rules, which python/adaexplore_worker/integrity/integrity.py reports findings by).
//
// Source rules are findings on the candidate's code, from its source (integrity.py) or from what
// it did (audit.py, runtime_checks.py); a profile rejects those in its reject_static. Runtime
// checks are facts about a run, each behind a switch of the profile, or always on.

#include <string>
#include <string_view>
#include <vector>

namespace adaexplore {

struct EvalProfile;

enum class CheckKind {
  kSourceRule,  // A finding named by a rule: from the source or from the audit of the run.
  kRuntime,     // A fact about the run: outputs, inputs, timing, the kernel trace.
};

struct IntegrityCheck {
  std::string_view name;  // Stable: stored in facts, results, cache keys and reports.
  CheckKind kind;
  std::string_view catches;  // What it rejects, as a phrase: "kernels that <catches>".
  std::string_view why;      // Why it rejects, in words a user can act on.
  // Whether a profile runs a runtime check (its switch); null: always on. Source rules are on
  // when the profile's reject_static names them.
  bool (*enabled)(const EvalProfile&) = nullptr;
  // For a source rule: whether the strict profile rejects on it, or only reports the finding
  // (a try/except, which rejects only when the run shows a fallback: swallowed_exception).
  bool rejects_by_default = true;
};

// Every check, in the order reports list them: the source rules, then the runtime checks.
const std::vector<IntegrityCheck>& IntegrityChecks();

// The check named `name`; a name that is not declared is a bug (CHECK).
const IntegrityCheck& GetIntegrityCheck(std::string_view name);
const IntegrityCheck* FindIntegrityCheck(std::string_view name);

// Whether `profile` runs `check` (and rejects on it).
bool CheckApplies(const IntegrityCheck& check, const EvalProfile& profile);

// The names of the source rules.
std::vector<std::string> IntegrityRuleNames();
// The source rules the strict profile rejects on (the rest are reported as findings).
std::vector<std::string> DefaultRejectedRules();

}  // namespace adaexplore
