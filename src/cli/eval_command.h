#pragma once

// `adaexplore eval`: evaluate candidates against tasks and print verdicts.
//
//   adaexplore eval --task T.py --kernel K.py [--kernel K2.py ...] [--kernel-dir D]
//   adaexplore eval --tasks-dir TD --kernels-dir KD     (KD/<task>/*.py against TD/<task>.py)

#include <CLI/CLI.hpp>

#include "cli/eval_flags.h"
#include "core/result.h"

namespace adaexplore {

void AddEvalCommand(CLI::App& app, EvalFlags& flags);

// Runs the command; the exit code is 0 when every candidate got a verdict (whatever it is), 1 when
// some could not be evaluated (verdict "error" or "task_error").
Result<int> RunEval(const EvalFlags& flags);

}  // namespace adaexplore
