#include "eval/size_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "workers/facts.h"

namespace adaexplore {
namespace {

// A FlashInfer-Trace definition's workload check is named "workload <uuid>".
constexpr std::string_view kWorkloadSetPrefix = "workload ";

std::string CheckedAt(const SizeCheck& check) {
  return fmt::format("{} ({})", SizesText(check.sizes), check.set);
}

constexpr std::string_view kSizeSetsPhase = "size_sets";  // The worker's phase that checks them.

// A job's own time: its phases (the worker's parts, named "phase.part", are inside them), or
// only the phase `only`.
double PhaseSeconds(const nlohmann::json& facts, std::string_view only = "") {
  if (!facts.is_object() || !facts.contains("phases") || !facts["phases"].is_object()) {
    return 0;
  }
  double seconds = 0;
  for (const auto& [name, value] : facts["phases"].items()) {
    if (value.is_number() && name.find('.') == std::string::npos &&
        (only.empty() || name == only)) {
      seconds += value.get<double>();
    }
  }
  return seconds;
}

// One set of a job's facts.size_sets (`raw` as sent, `set` decoded), read as the result of a check
// job of its own would be: its trials classified under the check's profile.
// The evaluation process ran the candidate after it wrote a set's facts, so a candidate may
// rewrite them: a job correct at its own sizes (the only one whose sets are read) ran every set
// whose reference was made, all its trials; a set said to be beyond the task's reference where a
// check job of the task's made it, or one not run or short of trials, is a result the harness
// did not make, and wrong.
SizeCheck ReadSizeSet(const SizeVariant& variant, const SizeSetFacts& set,
                      const nlohmann::json& raw, const nlohmann::json& facts,
                      const EvalProfile& profile, const DeviceCeilings* ceilings, bool made) {
  SizeCheck check{.set = variant.name, .sizes = variant.sizes, .in_job = true};
  const auto forged = [&](const std::string& what) {
    check.outcome = SizeOutcome::kWrong;
    check.detail = fmt::format("forged_result: {}: a result the harness did not make", what);
    return check;
  };
  const size_t trials = static_cast<size_t>(std::min(profile.job.trials, kSizeCheckTrials));
  if (!set.reference_error.empty()) {
    if (made) {
      return forged(
          "the job said the task's reference cannot run at these sizes, where a check "
          "job of the task's made it");
    }
    check.outcome = SizeOutcome::kNotApplicable;
    check.detail = "the task's reference cannot run at these sizes: " + set.reference_error;
    return check;
  }
  if (!set.ran) {
    return forged("the job was correct at its own sizes but did not run these");
  }
  if (set.error.message.empty() && set.trials.size() < trials) {
    return forged(
        fmt::format("the job reported {} of the set's {} trials", set.trials.size(), trials));
  }
  if (!set.error.message.empty()) {
    // Out of device memory beside other jobs is the machine's, not the kernel's.
    const bool out_of_memory = set.error.out_of_memory && !set.error.cuda_error;
    const std::string said = fmt::format("{}: raised {}: {}", VerdictName(Verdict::kRuntimeError),
                                         set.error.type, set.error.message);
    check.outcome = out_of_memory ? SizeOutcome::kNotRun : SizeOutcome::kWrong;
    check.detail = out_of_memory ? "ran out of device memory beside other jobs: " + said : said;
    return check;
  }
  // The job's facts with the set's trials as its own: every other fact (the judge's, the
  // integrity checks') is the job's, which its own sizes' verdict read already.
  nlohmann::json own = facts;
  own["trials"] = raw.at("trials");
  for (const char* key : {"size_sets", "timing", "determinism", "determinism_passed"}) {
    own.erase(key);
  }
  EvalProfile checked = profile;
  AsSizeCheck(variant, checked.job);
  EvalResult result;
  Classify(own, checked, result, ceilings);
  check = ReadSizeCheck(variant, result, false);
  if (result.verdict == Verdict::kRejected && result.check == "forged_result") {
    check.outcome = SizeOutcome::kWrong;  // Outputs the judge never saw: see above.
  }
  check.in_job = true;
  check.wall_s = 0;
  return check;
}

}  // namespace

std::optional<std::map<std::string, int64_t>> RanAtSizes(const nlohmann::json& facts) {
  if (!facts.is_object() || !facts.contains("task_sizes") || !facts["task_sizes"].is_object()) {
    return std::nullopt;
  }
  std::map<std::string, int64_t> sizes;
  for (const auto& [name, value] : facts["task_sizes"].items()) {
    if (value.is_number_integer()) {
      sizes[name] = value.get<int64_t>();
    }
  }
  // A smoke test (--shrink) varies the sizes it ran at: its job shrinks the task first, then
  // sets the set's sizes.
  const nlohmann::json changed =
      facts.value("shrink", nlohmann::json::object()).value("changed", nlohmann::json());
  if (changed.is_object()) {
    for (const auto& [name, from_to] : changed.items()) {
      if (from_to.is_array() && from_to.size() == 2 && from_to[1].is_number_integer()) {
        sizes[name] = from_to[1].get<int64_t>();
      }
    }
  }
  return sizes;
}

std::vector<SizeVariant> SizeChecksFor(const EvalProfile& profile, const EvalResult& result,
                                       int measurement) {
  if (!profile.size_checks || result.verdict != Verdict::kCorrect || measurement > 0) {
    return {};
  }
  const std::optional<std::map<std::string, int64_t>> sizes = RanAtSizes(result.facts);
  return sizes ? SizeVariants(*sizes) : std::vector<SizeVariant>{};
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

std::vector<SizeSet> AsSizeSets(const std::vector<SizeVariant>& variants, int trials) {
  std::vector<SizeSet> sets;
  for (const SizeVariant& variant : variants) {
    sets.push_back({.name = variant.name,
                    .sizes = variant.sizes,
                    .trials = std::min(trials, kSizeCheckTrials)});
  }
  return sets;
}

std::vector<SizeCheck> ReadSizeSets(const std::vector<SizeVariant>& variants,
                                    const nlohmann::json& facts, const EvalProfile& profile,
                                    const DeviceCeilings* ceilings,
                                    const std::set<std::string>& made) {
  const Result<Facts> decoded = DecodeFacts(facts);
  const std::vector<SizeSetFacts> none;
  const std::vector<SizeSetFacts>& sets = decoded.ok() ? decoded->size_sets : none;
  // Each set that ran takes its share of the phase that checked them all.
  const auto ran = std::ranges::count_if(sets, &SizeSetFacts::ran);
  const double share = ran > 0 ? PhaseSeconds(facts, kSizeSetsPhase) / static_cast<double>(ran) : 0;
  std::vector<SizeCheck> checks;
  for (const SizeVariant& variant : variants) {
    const auto set = std::ranges::find(sets, variant.name, &SizeSetFacts::name);
    if (set == sets.end()) {
      checks.push_back(
          {.set = variant.name,
           .sizes = variant.sizes,
           .outcome = decoded.ok() ? SizeOutcome::kWrong : SizeOutcome::kNotRun,
           .detail = decoded.ok() ? "forged_result: the job was correct at its own "
                                    "sizes and did not report these: a result the "
                                    "harness did not make"
                                  : "the job's facts do not read: " + decoded.status().message(),
           .in_job = true});
      continue;
    }
    const nlohmann::json& raw = facts.at("size_sets").at(set - sets.begin());
    checks.push_back(
        ReadSizeSet(variant, *set, raw, facts, profile, ceilings, made.contains(variant.name)));
    checks.back().busy_s = set->ran ? share : 0;
  }
  return checks;
}

bool EndedAtSizeSets(const nlohmann::json& facts) {
  const Result<FactStatus> status = StatusOf(facts);
  return status.ok() && *status != FactStatus::kOk && facts.contains("phase") &&
         facts["phase"].is_string() && facts["phase"].get<std::string>() == kSizeSetsPhase;
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
