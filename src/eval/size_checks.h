#pragma once

// The other size sets at work (issue 58). A KernelBench kernel found correct at the task's own
// sizes is checked again at each set eval/size_variants.h derives from them: the same trials and
// checks at those sizes, nothing timed, each set its own job. A kernel wrong at a set keeps its
// verdict and speedup and is marked correct at the task's sizes only, with a finding that names
// the sizes and what was wrong ("correct at the task's sizes only: wrong at batch_size=17,
// dim=1001 (uneven): incorrect: ..."); a task whose reference cannot run at a set (its asserts
// tie the sizes together) says so and keeps its own sizes' check. The strict profile checks
// (size_checks); the profiles that reproduce a harness do not.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "eval/classify.h"
#include "eval/profile.h"
#include "eval/size_variants.h"
#include "eval/verdict.h"
#include "task/source_file.h"
#include "workers/protocol.h"

namespace adaexplore {

// Trials per size set: the first of the profile's input distributions, enough to find a kernel
// that bakes in the task's sizes at a fraction of its own check's cost.
inline constexpr int kSizeCheckTrials = 2;

// The sizes the task ran at, from a job's facts: its task_sizes with --shrink's changes; none when
// it reported none (not a KernelBench task, or it did not load).
std::optional<std::map<std::string, int64_t>> RanAtSizes(const nlohmann::json& facts);

// The sets `result` is checked at under `profile`: none unless it is correct, a first
// measurement, and the task reported its sizes. Made from the sizes it ran at (--shrink's where
// a smoke test shrank them).
std::vector<SizeVariant> SizeChecksFor(const EvalProfile& profile, const EvalResult& result,
                                       int measurement);

// The sets a FlashInfer-Trace definition's combined result is checked at: one per workload its
// selection left out for the checks (task.check_workloads, in order; task/workload_selection.h),
// named "workload <uuid>", its integer axes as the sizes. None unless the profile checks sizes
// and the result is a correct first measurement.
std::vector<SizeVariant> WorkloadChecksFor(const EvalProfile& profile, const SourceFile& task,
                                           const EvalResult& combined, int measurement);

// A check's job options from the candidate's own: the sizes set, kSizeCheckTrials trials, no
// determinism rerun (the task's own sizes had it), and nothing timed, traced or compared with a
// baseline.
void AsSizeCheck(const SizeVariant& variant, JobOptions& options);

// The sets as a job's size_sets option: checked in the candidate's own job once its own trials
// passed, each with the first of them (kSizeCheckTrials at most).
std::vector<SizeSet> AsSizeSets(const std::vector<SizeVariant>& variants, int trials);

// The checks a job that carried `variants` as its size_sets made, read from its facts as a check
// job's result would be: each set's trials classified under the check's profile (the judge's
// values at their indices), a set the task's reference cannot run at not applicable, a call or
// construction that raised there wrong. The job ran the candidate after it wrote them: a set it
// did not run or ran short of trials, or whose reference it says failed where the task's own
// check jobs made it (`made`, by name), is forged, and wrong. Read only for a correct job.
std::vector<SizeCheck> ReadSizeSets(const std::vector<SizeVariant>& variants,
                                    const nlohmann::json& facts, const EvalProfile& profile,
                                    const DeviceCeilings* ceilings,
                                    const std::set<std::string>& made = {});

// The job ended (a crash, a limit) while it checked its size sets: the verdict at the task's own
// sizes went with it, so the job is made again without them.
bool EndedAtSizeSets(const nlohmann::json& facts);

// What a check's classified result says. `out_of_memory`: the job ran out of device memory
// beside others, which says nothing about the kernel.
SizeCheck ReadSizeCheck(const SizeVariant& variant, const EvalResult& checked, bool out_of_memory);

// Adds the checks to `result`, with the finding a wrong one (or a task whose sizes cannot vary)
// makes.
void AddSizeChecks(std::vector<SizeCheck> checks, EvalResult& result);

// Correct, and wrong at one of the other size sets.
bool CorrectAtTaskSizesOnly(const EvalResult& result);

// The first wrong check's line ("wrong at batch_size=17, dim=1001 (uneven): incorrect: ..."),
// for findings, prompts and reports; empty when none is wrong.
std::string WrongSizesText(const EvalResult& result);

// What the kernel is, with that line: "correct at the task's sizes only: wrong at ...", or for a
// FlashInfer-Trace definition's workload checks "correct on its selected workloads only: wrong
// at M=5 (workload ...): ..."; empty when none is wrong.
std::string SizesOnlyMark(const EvalResult& result);

}  // namespace adaexplore
