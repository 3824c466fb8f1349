#pragma once

// Internal to the verdict (eval/classify.cc and the classify_*.cc files, one concept each): what
// every verdict rule reads, the helpers they share, and the rules and figures each file gives.
// classify.cc holds the rule table (kVerdictRules) and the order the rules run in; nothing here
// is for use outside eval/classify*.cc. Everything reads the facts already decoded
// (workers/facts.h).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eval/profile.h"
#include "eval/verdict.h"
#include "workers/facts.h"
#include "workers/protocol.h"

namespace adaexplore::classify_internal {

// What every verdict rule reads: the decoded facts and the profile.
struct Evidence {
  const Facts& facts;
  const Timing& timing;  // facts.timing, or an empty Timing when the worker timed nothing.
  const EvalProfile& profile;
};

// A rule of the verdict: when it decides, it has set the verdict and the reason, and no later
// rule runs.
using DecideFn = bool (*)(const Evidence&, EvalResult&);

// Shared helpers.

// The first line of `text`, cut to a length a reason can hold.
std::string FirstLine(const std::string& text);
// A rejection by `check` (eval/checks.h), which names it in the result.
void Reject(EvalResult& r, std::string_view check, std::string reason);
// Whether the profile runs `check`.
bool Applies(const EvalProfile& profile, std::string_view check);
// The samples that are numbers (the worker sends null for NaN and infinities).
std::vector<double> Samples(const std::vector<std::optional<double>>& samples);
// The worst relative error (max |out - ref| / max |ref|) of the checked outputs, against the
// trials' references; only those on the task's own inputs when `task_inputs_only`.
double TrialRelativeError(const std::vector<Trial>& trials, bool task_inputs_only = false);

// classify_status.cc: how far the evaluation got, and the errors raised.
bool DecideStatus(const Evidence& e, EvalResult& r);

// classify_trials.cc: the trials, determinism and accuracy.
bool DecideNoTrials(const Evidence& e, EvalResult& r);
bool DecideTrials(const Evidence& e, EvalResult& r);
bool DecideDeterminism(const Evidence& e, EvalResult& r);
bool DecideTimedAccuracy(const Evidence& e, EvalResult& r);
void CollectErrorFigures(const std::vector<Trial>& trials, EvalResult& r);
void NoteReducedPrecision(const std::vector<Trial>& trials, const EvalProfile& p, EvalResult& r);

// classify_judge.cc: the outputs as the judge compared them, out of the candidate's reach.
// TakeJudgedValues runs on the decoded facts before any rule reads them.
void TakeJudgedValues(Facts& facts);
bool DecideJudge(const Evidence& e, EvalResult& r);
void CollectJudge(const Facts& facts, EvalResult& r);
// The timing the figures are made of (clean_reference_timing): each reference series that ran
// slower beside the candidate than in a process that never imported one, by more than both
// medians' noise and the GPU's drift, replaced by that clean series, with a finding. A
// candidate's process can slow the reference (a dispatcher registration, a patched torch call,
// work of its own between the reference's runs); it cannot make the clean series slower.
Timing JudgedTiming(const Facts& facts, const EvalProfile& profile, EvalResult& r);

// classify_integrity.cc: the integrity checks that reject.
bool DecideFindings(const Evidence& e, EvalResult& r);
bool DecideRuntimeIntegrity(const Evidence& e, EvalResult& r);
bool DecideSwallowed(const Evidence& e, EvalResult& r);
bool DecideFlagsChanged(const Evidence& e, EvalResult& r);
bool DecideKernelTrace(const Evidence& e, EvalResult& r);
bool DecideRevalidation(const Evidence& e, EvalResult& r);
bool DecideStreamEscape(const Evidence& e, EvalResult& r);
bool DecideOwnLaunches(const Evidence& e, EvalResult& r);
// Findings the result reports whether or not they rejected, and the degenerate tasks.
void CollectFindings(const Facts& facts, EvalResult& r);
void CollectDegenerate(const Facts& facts, EvalResult& r);

// classify_speedup.cc: the timing of a correct candidate, its speedups and their bound.
void ClassifyTiming(const Timing& timing, const EvalProfile& p, EvalResult& r);
// Why the GPU scope's figures do not stand (no timeline, or a timed run with no GPU work inside
// its call), or nullopt: the speedup then compares the call's timed runs.
std::optional<std::string> GpuScopeBroken(const Timing& timing);
// Why the operator's figures of a task whose call makes its own inputs do not stand, or nullopt
// when they do (both traces hold exactly the setup ranges their worker opened, torch intact, and
// the two setups launched the same kernels: the test and its seed are the same on both sides, so
// a setup that differs holds work of the candidate's). Without them both sides' kernel times are
// their whole calls'.
std::optional<std::string> OperatorScopeBroken(const Facts& facts);
// Whether the task's call makes its own inputs: its trace has the operator's kernel time.
bool CallMakesItsInputs(const Facts& facts);
bool OperatorScopeHolds(const Facts& facts);
// The candidate's own and PyTorch kernel time: without the kernels launched in setup ranges where
// the operator's figures stand, else the whole call's.
KernelKinds OperatorKinds(const Facts& facts);
// Why the operator's GPU time in each timed run (gpu_timeline.py) of a task whose call makes its
// own inputs does not stand, or nullopt: both sides have it for every run, torch stayed intact,
// and the two sides' setup calls launched the same kernels per run.
std::optional<std::string> OperatorGpuBroken(const Timing& timing);
// The profile the timing is judged under, with `timing` made the scope's: where the operator's
// GPU time stands, it becomes each side's GPU series.
EvalProfile TimedProfile(const Facts& facts, Timing& timing, const EvalProfile& profile,
                         EvalResult& r);
void ClassifyKernelScope(const Facts& facts, const EvalProfile& p, EvalResult& r);
void ClassifyExpert(const Facts& facts, const Timing& timing, const EvalProfile& p, EvalResult& r);
std::optional<double> SpeedOfLightMs(const Facts& facts, const DeviceCeilings* ceilings);
bool ClassifySpeedOfLight(const EvalProfile& profile, EvalResult& r);

// classify_profile.cc: a correct candidate's fraction of the speed of light, and its profile's
// bottleneck (eval/kernel_profile.h): the hardware profile's, else one estimated from the kernel
// trace; or why it has none.
void ClassifyProfile(const Facts& facts, const EvalProfile& profile, const DeviceCeilings* ceilings,
                     EvalResult& r);

}  // namespace adaexplore::classify_internal
