#include "eval/size_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>

namespace adaexplore {
namespace {

// A FlashInfer-Trace definition's workload check is named "workload <uuid>".
constexpr std::string_view kWorkloadSetPrefix = "workload ";

std::string CheckedAt(const SizeCheck& check) {
  return fmt::format("{} ({})", SizesText(check.sizes), check.set);
}

// A job's own time: its phases (the worker's parts, named "phase.part", are inside them).
double PhaseSeconds(const nlohmann::json& facts) {
  if (!facts.is_object() || !facts.contains("phases") || !facts["phases"].is_object()) {
    return 0;
  }
  double seconds = 0;
  for (const auto& [name, value] : facts["phases"].items()) {
    if (value.is_number() && name.find('.') == std::string::npos) {
      seconds += value.get<double>();
    }
  }
  return seconds;
}

}  // namespace

std::vector<SizeVariant> SizeChecksFor(const EvalProfile& profile, const EvalResult& result,
                                       int measurement) {
  if (!profile.size_checks || result.verdict != Verdict::kCorrect || measurement > 0 ||
      !result.facts.is_object() || !result.facts.contains("task_sizes") ||
      !result.facts["task_sizes"].is_object()) {
    return {};
  }
  std::map<std::string, int64_t> sizes;
  for (const auto& [name, value] : result.facts["task_sizes"].items()) {
    if (value.is_number_integer()) {
      sizes[name] = value.get<int64_t>();
    }
  }
  // A smoke test (--shrink) varies the sizes it ran at: its job shrinks the task first, then
  // sets the set's sizes.
  const nlohmann::json changed =
      result.facts.value("shrink", nlohmann::json::object()).value("changed", nlohmann::json());
  if (changed.is_object()) {
    for (const auto& [name, from_to] : changed.items()) {
      if (from_to.is_array() && from_to.size() == 2 && from_to[1].is_number_integer()) {
        sizes[name] = from_to[1].get<int64_t>();
      }
    }
  }
  return SizeVariants(sizes);
}

std::vector<SizeVariant> WorkloadChecksFor(const EvalProfile& profile, const SourceFile& task,
                                           const EvalResult& combined, int measurement) {
  if (!profile.size_checks || combined.verdict != Verdict::kCorrect || measurement > 0) {
    return {};
  }
  std::vector<SizeVariant> sets;
  for (const nlohmann::json& workload : task.check_workloads) {
    SizeVariant set{.name = fmt::format("{}{}", kWorkloadSetPrefix, sets.size() + 1)};
    if (workload.is_object() && workload.contains("uuid") && workload["uuid"].is_string()) {
      set.name = std::string(kWorkloadSetPrefix) + workload["uuid"].get<std::string>();
    }
    if (workload.is_object() && workload.contains("axes") && workload["axes"].is_object()) {
      for (const auto& [axis, value] : workload["axes"].items()) {
        if (value.is_number_integer()) {
          set.sizes[axis] = value.get<int64_t>();
        }
      }
    }
    sets.push_back(std::move(set));
  }
  return sets;
}

void AsSizeCheck(const SizeVariant& variant, JobOptions& options) {
  options.sizes = variant.sizes;
  options.trials = std::min(options.trials, kSizeCheckTrials);
  options.integrity_distributions.clear();
  options.determinism_check = false;  // Checked at the task's own sizes.
  CheckOnly(options);
}

SizeCheck ReadSizeCheck(const SizeVariant& variant, const EvalResult& checked, bool out_of_memory) {
  SizeCheck check{.set = variant.name,
                  .sizes = variant.sizes,
                  .wall_s = checked.wall_s,
                  .busy_s = PhaseSeconds(checked.facts)};
  const std::string said = fmt::format("{}: {}", VerdictName(checked.verdict), checked.reason);
  switch (checked.verdict) {
    case Verdict::kCorrect:
      check.outcome = SizeOutcome::kPassed;
      return check;
    case Verdict::kTaskError:
      check.outcome = SizeOutcome::kNotApplicable;
      check.detail = "the task's reference cannot run at these sizes: " + checked.reason;
      return check;
    case Verdict::kIncorrect:
    case Verdict::kCompileError:
    case Verdict::kRuntimeError:
    case Verdict::kCrash:
      // Out of device memory beside other jobs is the machine's, not the kernel's.
      check.outcome = out_of_memory ? SizeOutcome::kNotRun : SizeOutcome::kWrong;
      check.detail = out_of_memory ? "ran out of device memory beside other jobs: " + said : said;
      return check;
    case Verdict::kRejected:  // How it computed, not what: the check at its own sizes judges.
    case Verdict::kTimeout:
    case Verdict::kError:
      break;
  }
  check.outcome = SizeOutcome::kNotRun;
  check.detail = said;
  return check;
}

void AddSizeChecks(std::vector<SizeCheck> checks, EvalResult& result) {
  result.size_checks = std::move(checks);
  if (std::string mark = SizesOnlyMark(result); !mark.empty()) {
    result.findings.push_back(std::move(mark));
    return;
  }
  const bool cannot_vary = !result.size_checks.empty() &&
                           std::ranges::all_of(result.size_checks, [](const SizeCheck& c) {
                             return c.outcome == SizeOutcome::kNotApplicable;
                           });
  if (cannot_vary) {
    result.findings.push_back("the task's sizes cannot vary (its reference fails at " +
                              CheckedAt(result.size_checks.front()) +
                              "): checked at its own sizes only");
  }
}

bool CorrectAtTaskSizesOnly(const EvalResult& result) {
  return result.verdict == Verdict::kCorrect && !WrongSizesText(result).empty();
}

std::string WrongSizesText(const EvalResult& result) {
  for (const SizeCheck& check : result.size_checks) {
    if (check.outcome == SizeOutcome::kWrong) {
      return fmt::format("wrong at {}: {}", CheckedAt(check), check.detail);
    }
  }
  return "";
}

std::string SizesOnlyMark(const EvalResult& result) {
  for (const SizeCheck& check : result.size_checks) {
    if (check.outcome == SizeOutcome::kWrong) {
      return fmt::format("{}: {}",
                         check.set.starts_with(kWorkloadSetPrefix)
                             ? "correct on its selected workloads only"
                             : "correct at the task's sizes only",
                         WrongSizesText(result));
    }
  }
  return "";
}

}  // namespace adaexplore
