#include "search/step_result.h"

#include <fmt/format.h>

#include "eval/sanitizer.h"
#include "eval/size_checks.h"

namespace adaexplore {

bool Compiled(Verdict verdict) {
  return verdict != Verdict::kCompileError && verdict != Verdict::kError &&
         verdict != Verdict::kTaskError;
}

KernelRecord RecordOf(int node, const std::string& code, const EvalResult& result) {
  KernelRecord record{.node = node,
                      .code = code,
                      .verdict = std::string(VerdictName(result.verdict)),
                      .reason = result.reason,
                      .error = result.error_text,
                      .speedup = result.speedup,
                      .sol_fraction = result.sol_fraction,
                      .profile = result.profile_text,
                      .other_sizes = SizesOnlyMark(result),
                      .sanitizer = SanitizerText(result)};
  if (result.scope != TimingScope::kCall) {
    record.scope = std::string(EnumName(result.scope));
    if (result.candidate_timing && result.candidate_timing->runs > 0) {
      record.call_ms = result.candidate_timing->median_ms;
    }
  }
  if (result.scope == TimingScope::kKernel) {  // The times the speedup compares.
    if (result.candidate_kernel_us && result.reference_kernel_us) {
      record.runtime_ms = *result.candidate_kernel_us / 1e3;
      record.reference_ms = *result.reference_kernel_us / 1e3;
    }
    return record;
  }
  if (result.scope == TimingScope::kGpu && result.candidate_gpu_timing &&
      result.reference_gpu_timing) {
    record.runtime_ms = result.candidate_gpu_timing->median_ms;
    record.reference_ms = result.reference_gpu_timing->median_ms;
    return record;
  }
  if (result.candidate_timing && result.candidate_timing->runs > 0) {
    record.runtime_ms = result.candidate_timing->median_ms;
  }
  if (result.reference_timing && result.reference_timing->runs > 0) {
    record.reference_ms = result.reference_timing->median_ms;
  }
  return record;
}

std::optional<TaskRoofline> RooflineOf(const EvalResult& result) {
  if (!result.speed_of_light_ms) {
    return std::nullopt;
  }
  TaskRoofline roofline{.speed_of_light_ms = *result.speed_of_light_ms};
  const nlohmann::json& facts = result.facts.value("roofline", nlohmann::json::object());
  if (facts.is_object()) {
    if (facts.contains("io_bytes") && facts["io_bytes"].is_number()) {
      roofline.io_bytes = facts["io_bytes"].get<double>();
    }
    if (facts.contains("flops") && facts["flops"].is_number()) {
      roofline.flops = facts["flops"].get<double>();
    }
  }
  if (result.reference_timing && result.reference_timing->runs > 0) {
    roofline.reference_ms = result.reference_timing->median_ms;
  }
  return roofline;
}

bool IsNewBest(const SearchTree& tree, double speedup) {
  const std::optional<int> best = tree.GlobalBest();
  if (!best) {
    return true;
  }
  const NodeOutcome& outcome = tree.node(*best).outcome;
  return !outcome.correct || outcome.Barred() || speedup > outcome.speedup;
}

NodeOutcome OutcomeOf(const EvalResult& result, bool size_specific_best) {
  return NodeOutcome{.compiled = Compiled(result.verdict),
                     .correct = result.verdict == Verdict::kCorrect,
                     .correct_untimed = result.verdict == Verdict::kTimeout && result.passed_trials,
                     .sizes_only = !size_specific_best && CorrectAtTaskSizesOnly(result),
                     .unsafe = UnsafeUnderSanitizer(result),
                     .speedup = result.speedup.value_or(0),
                     .sol_fraction = result.sol_fraction};
}

EvalResult Confirmed(const EvalResult& first, const EvalResult& second) {
  EvalResult out = second.verdict == Verdict::kCorrect ? first : second;
  if (second.verdict != Verdict::kCorrect) {
    out.reason = fmt::format("not confirmed on {}: {}", second.worker, second.reason);
  } else if (second.speedup && (!out.speedup || *second.speedup < *out.speedup)) {
    out.speedup = second.speedup;
  }
  out.facts["measurements"] = {ToJson(first), ToJson(second)};
  return out;
}

}  // namespace adaexplore
