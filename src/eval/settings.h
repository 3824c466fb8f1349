#pragma once

// The evaluation settings a user changes over a profile ([eval] in adaexplore.toml, the flags of
// eval, run, bench and adapt, and the settings a run stores so that a resumed run judges with the
// same ones), declared once as a table (core/setting.h). Each row says whether the setting is
// sent to the worker (the JobOptions field) and whether it enters the result cache's
// fingerprint; the tests check both against EvalProfile::ToJobOptions and Fingerprint.

#include <nlohmann/json.hpp>
#include <vector>

#include "core/setting.h"
#include "eval/profile.h"

namespace adaexplore {

// precision, pytorch_compute, trials, warmup_runs, timed_runs, timeout_s, atol, rtol,
// memory_limit_mb, compile_baseline. precision comes first: it resets the strict tolerances, so
// an atol given with it still counts.
const std::vector<Setting<EvalProfile>>& EvalSettingTable();

// Every setting of the table, as `profile` has it.
nlohmann::json EvalSettings(const EvalProfile& profile);

// Sets those present in `settings`, all or none: an unknown name, a wrong type or a value out of
// range is an error naming the setting.
Status ApplyEvalSettings(const nlohmann::json& settings, EvalProfile& profile);

}  // namespace adaexplore
