#pragma once

// Turning the worker's facts into a verdict. This is where the policy lives: which facts make a
// candidate incorrect, which make it rejected, and what the speedup is. The worker only reports.
// Cached results are keyed by the worker's sources (WorkerHello::harness) but not by this file:
// a change to what a verdict means here needs a new salt in Evaluator::CacheKey.

#include <nlohmann/json.hpp>

#include "eval/profile.h"
#include "eval/verdict.h"
#include "workers/protocol.h"

namespace adaexplore {

// Fills verdict, reason, error text, timing and error figures of `result` from `facts` (the
// worker's "facts" object). `ceilings` (may be null) enable the speed-of-light bound. Never
// fails: malformed facts give Verdict::kError with the reason.
void Classify(const nlohmann::json& facts, const EvalProfile& profile, EvalResult& result,
              const DeviceCeilings* ceilings = nullptr);

}  // namespace adaexplore
