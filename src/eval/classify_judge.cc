// The judge's findings (facts.judge, python/adaexplore_worker/correctness/judge.py): the
// candidate's outputs as a process that never ran candidate code compared them with the sealed
// references. They replace the evaluation process's own claims before any rule reads the trials
// (that process ran the candidate, so its words may be the candidate's), and a trial the judge
// never saw is a result the harness did not make. Rules of kVerdictRules (eval/classify.cc).

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "eval/classify_internal.h"

namespace adaexplore::classify_internal {
namespace {

bool Judged(const Facts& facts) {
  return facts.judge && facts.judge->references == "sealed" && facts.judge->error.empty();
}

}  // namespace

void TakeJudgedValues(Facts& facts) {
  if (!Judged(facts)) {
    return;
  }
  for (Trial& trial : facts.trials) {
    const auto judged = std::ranges::find(facts.judge->trials, trial.index, &JudgedTrial::index);
    if (judged == facts.judge->trials.end()) {
      continue;  // DecideJudge refuses the result.
    }
    for (size_t k = 0; k < trial.outputs.size() && k < judged->outputs.size(); ++k) {
      trial.outputs[k].values = judged->outputs[k];
    }
    if (trial.passed) {  // A trial the child failed keeps its own reasons (an output's form).
      trial.problems.insert(trial.problems.end(), judged->problems.begin(), judged->problems.end());
    }
    trial.passed = trial.passed && judged->passed;
  }
  if (facts.judge->determinism) {
    facts.determinism = *facts.judge->determinism;  // The two runs as the judge compared them.
  }
}

bool DecideJudge(const Evidence& e, EvalResult& r) {
  const std::optional<JudgeFacts>& judge = e.facts.judge;
  if (!judge) {
    return false;
  }
  if (!judge->error.empty()) {
    r.verdict = Verdict::kError;
    r.reason = "the harness failed: the judge, which compares the outputs, did not: " +
               FirstLine(judge->error);
    return true;
  }
  if (!Judged(e.facts)) {
    return false;
  }
  // The child reran trial 0 when it passed there; the rerun's outputs go to the judge too.
  const bool first_passed = std::ranges::any_of(
      judge->trials, [](const JudgedTrial& t) { return t.index == 0 && t.passed; });
  if (e.profile.job.determinism_check && first_passed && e.facts.determinism.max_abs_diff &&
      !judge->determinism) {
    Reject(r, "forged_result",
           "the evaluation process reported a determinism rerun whose outputs never reached the "
           "judge: a result the harness did not make");
    return true;
  }
  for (const Trial& trial : e.facts.trials) {
    if (std::ranges::find(judge->trials, trial.index, &JudgedTrial::index) == judge->trials.end()) {
      Reject(r, "forged_result",
             fmt::format(
                 "trial {}: the evaluation process reported it, but the candidate's "
                 "outputs for it never reached the judge{}: a result the harness did "
                 "not make",
                 trial.index,
                 judge->stopped.empty() ? "" : " (its outputs file held " + judge->stopped + ")"));
      return true;
    }
  }
  return false;
}

void CollectJudge(const Facts& facts, EvalResult& r) {
  if (facts.judge && !Judged(facts) && facts.judge->error.empty()) {
    r.findings.push_back(fmt::format(
        "judge: the outputs were compared in the candidate's own process (references {}: "
        "larger than the bound a judge reads, or kept by no file)",
        facts.judge->references));
  }
  if (facts.judge && !facts.judge->unconfined.empty()) {
    r.findings.push_back(
        fmt::format("judge: ran without {}", fmt::join(facts.judge->unconfined, "; ")));
  }
}

Timing JudgedTiming(const Facts& facts, const EvalProfile& profile, EvalResult& r) {
  Timing timing = facts.timing.value_or(Timing{});
  if (!profile.job.clean_reference_timing || !timing.meaningful || timing.reference_ms.empty()) {
    return timing;
  }
  if (!Judged(facts)) {
    return timing;  // No sealed references: CollectJudge says so.
  }
  if (!facts.judge->reference_timing) {
    r.findings.push_back(
        "the reference was timed only in the candidate's process: no timing of it from a "
        "process that never imported a candidate reached the judge");
    return timing;
  }
  // The GPU's own drift between the clean timing (the task's first job on this worker) and this
  // one, below which the reference's runs beside the candidate stand.
  constexpr double kCleanDrift = 0.03;
  const CleanReferenceTiming& clean = *facts.judge->reference_timing;
  std::vector<std::string> slower;
  for (const auto& [beside, alone, scope] :
       {std::tuple{&timing.reference_ms, &clean.reference_ms, "call"},
        std::tuple{&timing.reference_gpu_ms, &clean.reference_gpu_ms, "GPU"},
        std::tuple{&timing.reference_operator_gpu_ms, &clean.reference_operator_gpu_ms,
                   "operator's GPU"}}) {
    const TimingStats b = ComputeTimingStats(Samples(*beside));
    const TimingStats a = ComputeTimingStats(Samples(*alone));
    if (b.runs == 0 || a.runs == 0) {
      continue;
    }
    const double allowed = std::max(kCleanDrift, b.median_halfwidth + a.median_halfwidth);
    if (b.Of(profile.statistic) > (1 + allowed) * a.Of(profile.statistic)) {
      slower.push_back(fmt::format("{} time {:.4g} ms against {:.4g} ms", scope,
                                   b.Of(profile.statistic), a.Of(profile.statistic)));
      *beside = *alone;
    }
  }
  if (!slower.empty()) {
    r.findings.push_back(fmt::format(
        "the reference ran slower beside the candidate than in a process that never imported "
        "it ({}): the speedup is over the clean timing",
        fmt::join(slower, "; ")));
  }
  return timing;
}

}  // namespace adaexplore::classify_internal
