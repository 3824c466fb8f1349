#pragma once

// The integrity rules a finding can name, declared once: the worker reports findings by these
// names (python/adaexplore_worker/integrity.py from the source, audit.py and child.py from what
// the candidate's code did), a profile's reject_static lists the ones that reject, and a
// rejection prints the rule's `why`. tests/golden/protocol/rules.json holds the names for the
// worker's tests, so a rule added on one side only fails a test on the other.

#include <string>
#include <string_view>
#include <vector>

namespace adaexplore {

struct IntegrityRule {
  std::string_view name;  // Stable: stored in facts, cache keys and reports.
  std::string_view why;   // Why it rejects, in words a user can act on.
};

// Every rule, in the order reports list them.
const std::vector<IntegrityRule>& IntegrityRules();

// The rule named `name`, or null.
const IntegrityRule* FindIntegrityRule(std::string_view name);

// The names of every rule (what the strict profile rejects).
std::vector<std::string> IntegrityRuleNames();

}  // namespace adaexplore
