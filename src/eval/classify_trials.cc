// The verdict from the correctness trials: a failed trial, a nondeterministic rerun, timed outputs
// less accurate than the checked ones; and the accuracy figures a result reports. Rules of
// kVerdictRules (eval/classify.cc).

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/json_text.h"
#include "eval/classify_internal.h"

namespace adaexplore::classify_internal {
namespace {

std::string DescribeValues(const Trial& trial, const OutputValues& values) {
  std::string where;
  if (values.worst) {
    where = fmt::format("; worst at flat index {}: got {}, expected {}", values.worst->flat_index,
                        values.worst->out_text, values.worst->ref_text);
  }
  return fmt::format(
      "trial {} ({} inputs): {} of {} elements outside tolerance{}{}{}", trial.index,
      trial.distribution, values.violations, values.numel,
      values.nonfinite_out > 0 ? fmt::format(" ({} NaN/Inf)", values.nonfinite_out) : "", where,
      trial.integrity ? "; an integrity trial: the profile's own trials use the task's "
                        "inputs, and the kernel is wrong on others of the same magnitude"
                      : "");
}

// Sets the verdict of the failed `trial`: the first of its problems, its outputs' forms or
// values, or its mutated inputs.
void ClassifyFailedTrial(const Trial& trial, EvalResult& r) {
  for (const std::string& problem : trial.problems) {
    r.verdict = Verdict::kIncorrect;
    r.reason = fmt::format("trial {}: {}", trial.index, problem);
    return;
  }
  for (const TrialOutput& output : trial.outputs) {
    const OutputForm& form = output.form;
    const bool integrity = !form.exact_tensor || form.zero_stride || form.aliases_input;
    for (const std::string& problem : form.problems) {
      std::string reason = fmt::format("trial {}: {}", trial.index, problem);
      if (integrity) {
        Reject(r, "output_form", std::move(reason));
      } else {
        r.verdict = Verdict::kIncorrect;
        r.reason = std::move(reason);
      }
      return;
    }
    if (!output.values.passed) {
      r.verdict = Verdict::kIncorrect;
      r.reason = DescribeValues(trial, output.values);
      return;
    }
  }
  if (!trial.inputs_mutated.empty()) {
    Reject(r, "inputs_mutated",
           fmt::format("trial {}: the candidate modified its input(s) {}", trial.index,
                       JsonText(nlohmann::json(trial.inputs_mutated))));
    return;
  }
  r.verdict = Verdict::kIncorrect;
  r.reason = fmt::format("trial {} failed", trial.index);
}

// The machine epsilon of the least precise floating-point output the reference gives (0 when
// none is, or the facts do not say): two of it is rounding of the output itself, not drift.
double OutputEpsilon(const Facts& facts) {
  static const std::map<std::string, double, std::less<>> kEpsilon = {
      {"float64", 2.2e-16},  {"float32", 1.19e-7},     {"float16", 9.77e-4},
      {"bfloat16", 7.81e-3}, {"float8_e4m3fn", 0.125}, {"float8_e5m2", 0.25}};
  double epsilon = 0;
  for (const ReferenceOutput& output : facts.reference.outputs) {
    const auto it = kEpsilon.find(output.dtype);
    epsilon = std::max(epsilon, it == kEpsilon.end() ? 0.0 : it->second);
  }
  return epsilon;
}

}  // namespace

double TrialRelativeError(const std::vector<Trial>& trials, bool task_inputs_only) {
  double worst = 0;
  for (const Trial& trial : trials) {
    // "task", or "task (fallback from normal)"; an integrity trial is never on them.
    const bool on_task_inputs = !trial.integrity && trial.distribution.starts_with("task");
    if (task_inputs_only && !on_task_inputs) {
      continue;
    }
    for (const TrialOutput& output : trial.outputs) {
      const double scale = output.values.ref_max_abs.value_or(0.0);
      if (scale > 0) {
        worst = std::max(worst, output.values.max_abs_err.value_or(0.0) / scale);
      }
    }
  }
  return worst;
}

bool DecideNoTrials(const Evidence& e, EvalResult& r) {
  if (!e.facts.trials.empty()) {
    return false;
  }
  r.verdict = Verdict::kError;
  r.reason = "the worker reported success without any trial results";
  return true;
}

bool DecideTrials(const Evidence& e, EvalResult& r) {
  for (const Trial& trial : e.facts.trials) {
    if (!trial.passed) {
      ClassifyFailedTrial(trial, r);
      return true;
    }
  }
  return false;
}

bool DecideDeterminism(const Evidence& e, EvalResult& r) {
  const Determinism& determinism = e.facts.determinism;
  if (determinism.passed) {
    return false;
  }
  r.verdict = Verdict::kIncorrect;
  r.reason = determinism.special_mismatch
                 ? "nondeterministic: two runs on the same inputs disagree on NaN/Inf elements"
                 : fmt::format(
                       "nondeterministic: two runs on the same inputs differ by up to {:.3g}, "
                       "beyond the tolerance",
                       determinism.max_abs_diff.value_or(0.0));
  return true;
}

// Timed outputs much less accurate than every checked one: the kernel computes differently when
// timed (fp16 from the seventh call on), even where the tolerance would let both pass. An honest
// kernel's error on fresh inputs of the same task is of the same order as on the trials'; the
// floor and the factor leave room for rounding that varies with the values and for atomics.
bool DecideTimedAccuracy(const Evidence& e, EvalResult& r) {
  constexpr double kFactor = 20;
  constexpr double kFloor = 1e-5;  // Relative: ~80 float32 ulps of the output's scale.
  const std::optional<double> timed = e.timing.revalidated_relative_error;
  if (!Applies(e.profile, "timed_accuracy") || !timed) {
    return false;
  }
  double self_error = 0;  // How far the task-precision reference (timing's) is from exact.
  for (const std::optional<double>& v : e.facts.reference.self_error) {
    self_error = std::max(self_error, v.value_or(0.0));
  }
  // Timed runs get the task's inputs: compared with the trials on them (a kernel that turns to
  // fp16 after the first few calls must not hide behind a later trial's error).
  const double checked = TrialRelativeError(e.facts.trials, /*task_inputs_only=*/true) + self_error;
  // A bfloat16 output rounds to 2^-8 of its scale: a timed run one rounding step from the
  // reference, where the trials happened to match exactly, is no drift.
  if (*timed <= std::max(kFactor * std::max(checked, kFloor), 2 * OutputEpsilon(e.facts))) {
    return false;
  }
  Reject(r, "timed_accuracy",
         fmt::format("timed outputs were up to {:.3g} of the output's scale from the reference, "
                     "the checked ones at most {:.3g}: the kernel computes less accurately when "
                     "timed",
                     *timed, checked));
  return true;
}

void CollectErrorFigures(const std::vector<Trial>& trials, EvalResult& r) {
  for (const Trial& trial : trials) {
    for (const TrialOutput& output : trial.outputs) {
      if (const std::optional<double> a = output.values.max_abs_err) {
        r.max_abs_err = std::max(r.max_abs_err.value_or(0.0), *a);
      }
      if (const std::optional<double> rel = output.values.max_rel_err) {
        r.max_rel_err = std::max(r.max_rel_err.value_or(0.0), *rel);
      }
    }
  }
}

// A correct kernel whose error passes the profile's tolerance but not strict's: it computes in
// reduced precision (fp16, TF32) or approximates (a subsample, a series). Paper's 5e-2 admits that
// by design; the result says so, with the figure.
void NoteReducedPrecision(const std::vector<Trial>& trials, const EvalProfile& p, EvalResult& r) {
  const double strict = StrictTolerance(p.job.precision);
  const double error = TrialRelativeError(trials);
  if (std::max(p.job.atol, p.job.rtol) > strict && error > strict) {
    r.findings.push_back(fmt::format(
        "less accurate than strict admits: relative error {:.2g} (max |out - ref| / max |ref| "
        "over the trials) is within this profile's tolerance ({:g}) and above strict's ({:g}): "
        "reduced precision or an approximation",
        error, std::max(p.job.atol, p.job.rtol), strict));
  }
}

}  // namespace adaexplore::classify_internal
