#include "eval/classify.h"

// A verdict is the first rule of kVerdictRules (below) that decides, over the facts decoded once
// (workers/facts.h); a candidate no rule decides is correct, and is then timed and bounded. The
// rules live by concept: classify_status.cc (how far the evaluation got), classify_trials.cc
// (correctness), classify_integrity.cc (the checks that reject), classify_speedup.cc (the
// figures of a correct candidate); classify_internal.h declares them.

#include <fmt/format.h>

#include <array>
#include <string>

#include "eval/checks.h"
#include "eval/classify_internal.h"

namespace adaexplore {
namespace classify_internal {

std::string FirstLine(const std::string& text) {
  const size_t newline = text.find('\n');
  std::string line = newline == std::string::npos ? text : text.substr(0, newline);
  constexpr size_t kMaxReason = 400;
  if (line.size() > kMaxReason) {
    line = line.substr(0, kMaxReason) + "...";
  }
  return line;
}

void Reject(EvalResult& r, std::string_view check, std::string reason) {
  r.verdict = Verdict::kRejected;
  r.check = GetIntegrityCheck(check).name;
  r.reason = std::move(reason);
}

bool Applies(const EvalProfile& profile, std::string_view check) {
  return CheckApplies(GetIntegrityCheck(check), profile);
}

std::vector<double> Samples(const std::vector<std::optional<double>>& samples) {
  std::vector<double> out;
  for (const std::optional<double>& v : samples) {
    if (v) {
      out.push_back(*v);
    }
  }
  return out;
}

}  // namespace classify_internal

namespace {

using classify_internal::DecideFn;
using classify_internal::Evidence;
using nlohmann::json;
namespace ci = classify_internal;

struct VerdictRule {
  std::string_view name;
  DecideFn decide;
};

// In the order of the evaluation, so the first failure decides: a candidate that never imported
// is a compile error even if it would also have timed out, and its static findings come before
// what happened when it ran. A candidate no rule decides is correct.
constexpr std::array<VerdictRule, 14> kVerdictRules = {{
    {"findings", ci::DecideFindings},
    {"runtime_integrity", ci::DecideRuntimeIntegrity},
    {"status", ci::DecideStatus},
    {"judge", ci::DecideJudge},
    {"swallowed_exception", ci::DecideSwallowed},
    {"no_trials", ci::DecideNoTrials},
    {"trials", ci::DecideTrials},
    {"determinism", ci::DecideDeterminism},
    {"flags_changed_by_import", ci::DecideFlagsChanged},
    {"kernel_trace", ci::DecideKernelTrace},
    {"revalidation", ci::DecideRevalidation},
    {"timed_accuracy", ci::DecideTimedAccuracy},
    {"stream_escape", ci::DecideStreamEscape},
    {"own_launches", ci::DecideOwnLaunches},
}};

void ClassifyDecoded(const Facts& facts, const EvalProfile& profile, EvalResult& r,
                     const DeviceCeilings* ceilings) {
  r.wall_s = facts.wall_s.value_or(0.0);
  r.stdout_tail = facts.stdout_tail;
  r.stderr_tail = facts.stderr_tail;
  if (r.device.empty()) {
    r.device = facts.device_name;
  }
  if (facts.shrink && facts.shrink->applies && !facts.shrink->changed.empty()) {
    r.shrink = static_cast<int>(facts.shrink->factor);
    for (const auto& [name, sizes] : facts.shrink->changed) {
      if (sizes.size() == 2) {
        r.shrunk.push_back(fmt::format("{} {} -> {}", name, sizes[0], sizes[1]));
      }
    }
  }
  ci::CollectErrorFigures(facts.trials, r);
  ci::CollectDegenerate(facts, r);
  ci::CollectFindings(facts, r);
  ci::CollectJudge(facts, r);
  static const Timing kUntimed;
  const Evidence evidence{
      .facts = facts, .timing = facts.timing ? *facts.timing : kUntimed, .profile = profile};
  for (const VerdictRule& rule : kVerdictRules) {
    if (rule.decide(evidence, r)) {
      return;
    }
  }
  r.verdict = Verdict::kCorrect;
  r.passed_trials = true;
  r.reason = "matches the reference on every trial";
  ci::NoteReducedPrecision(facts.trials, profile, r);
  if (facts.timing) {
    Timing timing = ci::JudgedTiming(facts, profile, r);
    const EvalProfile timed = ci::TimedProfile(facts, timing, profile, r);
    ci::ClassifyTiming(timing, timed, r);
    ci::ClassifyExpert(facts, timing, timed, r);
    ci::ClassifyKernelScope(facts, timed, r);
  }
  r.speed_of_light_ms = ci::SpeedOfLightMs(facts, ceilings);
  if (!ci::ClassifySpeedOfLight(profile, r)) {
    ci::ClassifyProfile(facts, profile, ceilings, r);
  }
}

}  // namespace

void Classify(const json& facts, const EvalProfile& profile, EvalResult& r,
              const DeviceCeilings* ceilings) {
  r.profile = profile.name;
  if (!facts.is_object()) {
    r.verdict = Verdict::kError;
    r.reason = "the worker sent no facts";
    return;
  }
  r.facts = facts;  // Stored as the worker sent them: the run database keeps every key.
  Result<Facts> decoded = DecodeFacts(facts);
  if (!decoded.ok()) {
    // Facts come from another process: a wrong shape anywhere is the worker's bug, not ours.
    r.verdict = Verdict::kError;
    r.reason = "malformed facts from the worker: " + decoded.status().message();
    return;
  }
  ci::TakeJudgedValues(*decoded);
  ClassifyDecoded(*decoded, profile, r, ceilings);
}

}  // namespace adaexplore
