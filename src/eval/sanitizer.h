#pragma once

// compute-sanitizer on correct kernels (issue 58): `eval --sanitize` runs it on every correct
// kernel, a search on each new best (search/run_spec.h, sanitize_best). Each tool the profile
// names (sanitizer_tools: memcheck and racecheck unless set) runs the kernel's call once on the
// task's inputs, inside the candidate's sandbox (python/adaexplore_worker/evaluation/sanitizer.py);
// the job is the candidate's own with the `sanitize` option set.
//
// What a run means is decided here. Errors the tool found (an out-of-bounds access, a race) keep
// the kernel's verdict and speedup, add a finding, and keep a search from taking it as its best;
// so does a call that did not complete under the tool (it raised, was killed, ran out of time,
// or the tool exited otherwise): a kernel that behaves differently under the tool is not vouched
// for. A worker without the tool says so once, and the result says the tool was not run.

#include <string>
#include <vector>

#include "eval/profile.h"
#include "eval/verdict.h"
#include "workers/protocol.h"

namespace adaexplore {

// The tools `profile` runs, in order, from its sanitizer_tools choice ("memcheck,racecheck").
std::vector<std::string> SanitizerTools(const EvalProfile& profile);
// The choices of sanitizer_tools: the tools alone, the default pair, and "all".
std::vector<std::string_view> SanitizerToolChoices();

// A sanitizer job's options from the candidate's own: the tools, each run's time limit, and
// nothing else (the worker runs no reference, no trial and no timing for it).
void AsSanitizerRun(const EvalProfile& profile, JobOptions& options);
// The job's whole time limit: every tool's, and the start of the job.
double SanitizerJobTimeout(const EvalProfile& profile);

// What a sanitizer job's facts say, one check per tool of `tools`.
std::vector<SanitizerCheck> ReadSanitizerFacts(const nlohmann::json& facts,
                                               const std::vector<std::string>& tools);
// One check per tool, not run, for `why` (no tool on the worker).
std::vector<SanitizerCheck> SanitizerNotRun(const std::vector<std::string>& tools,
                                            const std::string& why);

// Adds the checks to `result`, with the finding an unclean one makes ("compute-sanitizer
// memcheck found 3 errors: Invalid __global__ read of size 4 bytes ...").
void AddSanitizerChecks(std::vector<SanitizerCheck> checks, EvalResult& result);

// Correct, and the sanitizer found errors in it or could not finish its call.
bool UnsafeUnderSanitizer(const EvalResult& result);
// The first unclean check's line, for findings, prompts and reports; empty when none is.
std::string SanitizerText(const EvalResult& result);

}  // namespace adaexplore
