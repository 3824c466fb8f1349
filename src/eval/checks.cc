#include "eval/checks.h"

#include <algorithm>

#include "core/status.h"
#include "eval/profile.h"

namespace adaexplore {
namespace {

// A runtime check switched by one boolean of the profile.
template <bool EvalProfile::*kSwitch>
bool On(const EvalProfile& profile) {
  return profile.*kSwitch;
}

// A runtime check switched by one of the job's options (profile.job).
template <bool JobOptions::*kSwitch>
bool OnJob(const EvalProfile& profile) {
  return profile.job.*kSwitch;
}

}  // namespace

const std::vector<IntegrityCheck>& IntegrityChecks() {
  using enum CheckKind;
  static const std::vector<IntegrityCheck> checks = {
      {"model_inheritance", kSourceRule, "inherit from or call `Model`",
       "ModelNew must derive from nn.Module only; inheriting the reference runs PyTorch, not a "
       "kernel"},
      {"try_except", kSourceRule, "fall back to PyTorch in try/except",
       "a try/except can fall back to PyTorch when the kernel fails (reported; a run rejects "
       "only a fallback that happens: swallowed_exception)",
       nullptr, /*rejects_by_default=*/false},
      {"torch_compile", kSourceRule, "use torch.compile",
       "torch.compile is not a hand-written kernel"},
      {"threads", kSourceRule, "start threads",
       "threads can finish work after the timer has stopped"},
      {"streams", kSourceRule, "use other CUDA streams",
       "work on other CUDA streams can escape the timed stream"},
      {"precision_flags", kSourceRule, "change precision flags",
       "precision switches change the numerics of the whole process"},
      {"timer_patch", kSourceRule, "rebind timers or synchronisation",
       "rebinding timers or synchronisation falsifies timing"},
      {"lazy_tensor", kSourceRule, "return tensor subclasses",
       "tensor subclasses can defer work until after timing"},
      {"harness_access", kSourceRule, "reach into the harness",
       "a kernel has no reason to reach into the harness (gc, frames, sys.modules, /proc, raw "
       "file descriptors, signals, tracing)"},
      {"dynamic_code", kSourceRule, "build code at run time with exec or compile",
       "code built at run time with exec/compile escapes every check on the source"},
      {"patching", kRuntime, "replace timers, synchronisation or torch functions while running",
       "timers, synchronisation and the functions checks use must not be patched",
       On<&EvalProfile::reject_patching>},
      {"threads_left_running", kRuntime, "leave threads running after forward returns",
       "work outside the timed window", On<&EvalProfile::reject_threads_left_running>},
      {"output_form", kRuntime,
       "return an input, a view or expanded view of one, or a tensor subclass",
       "an output must be a new tensor of its own"},
      {"inputs_mutated", kRuntime, "modify their inputs",
       "a kernel that writes its inputs changes what the next call (and the check) sees"},
      {"dispatcher_override", kRuntime, "register kernels for torch's own operators",
       "a kernel registered in torch's dispatcher for an operator it did not define also runs "
       "for the reference's calls: the reference would be slowed or changed, not the candidate",
       On<&EvalProfile::reject_patching>},
      {"forged_result", kRuntime, "write to the harness's result channel",
       "only the harness reports results"},
      {"flags_changed_by_import", kRuntime, "change precision flags when imported",
       "a kernel must not change global numerics (the flags are restored)",
       On<&EvalProfile::reject_flag_changes>},
      {"revalidation", kRuntime, "cache or replay results between calls",
       "every timed output is checked against the reference on the same fresh inputs",
       OnJob<&JobOptions::revalidate_timed>},
      {"timed_accuracy", kRuntime, "compute less accurately when timed than when checked",
       "a timed output far less accurate than every checked one means the kernel changes what "
       "it computes once the checks are over",
       OnJob<&JobOptions::revalidate_timed>},
      {"stream_escape", kRuntime, "leave work outside the timed stream",
       "work on side streams or threads escapes the timer", On<&EvalProfile::check_stream_escape>},
      {"swallowed_exception", kRuntime, "swallow an exception while called (a fallback)",
       "an exception the candidate's code caught and went on from during a checked or timed "
       "call is how a fallback to PyTorch hides a kernel that failed; let the kernel fail",
       On<&EvalProfile::reject_swallowed>},
      {"own_launches", kRuntime, "answer a call without launching a kernel of their own",
       "the launch hooks (Triton, load_inline) saw no kernel of the candidate's run: PyTorch "
       "did the work",
       [](const EvalProfile& p) {
         return p.check_own_launches && p.pytorch_compute != PytorchCompute::kUnrestricted;
       }},
      {"kernel_trace", kRuntime, "launch none of their own kernels (GPU kernel trace)",
       "its kernels are defined but not launched, or it falls back to PyTorch",
       [](const EvalProfile& p) {
         return p.job.kernel_trace && p.pytorch_compute != PytorchCompute::kUnrestricted;
       }},
      {"speed_of_light", kRuntime,
       "report times below reading the inputs and writing the outputs once at the GPU's "
       "bandwidth",
       "faster than the hardware allows is a measurement error or a cheat, pending review",
       On<&EvalProfile::speed_of_light>},
  };
  return checks;
}

const IntegrityCheck* FindIntegrityCheck(std::string_view name) {
  const std::vector<IntegrityCheck>& checks = IntegrityChecks();
  const auto found = std::ranges::find(checks, name, &IntegrityCheck::name);
  return found == checks.end() ? nullptr : &*found;
}

const IntegrityCheck& GetIntegrityCheck(std::string_view name) {
  const IntegrityCheck* check = FindIntegrityCheck(name);
  CHECK(check != nullptr);  // Every name used in the code is declared above.
  return *check;
}

bool CheckApplies(const IntegrityCheck& check, const EvalProfile& profile) {
  if (check.kind == CheckKind::kSourceRule) {
    return std::ranges::find(profile.reject_static, check.name) != profile.reject_static.end();
  }
  return check.enabled == nullptr || check.enabled(profile);
}

std::vector<std::string> DefaultRejectedRules() {
  std::vector<std::string> names;
  for (const IntegrityCheck& check : IntegrityChecks()) {
    if (check.kind == CheckKind::kSourceRule && check.rejects_by_default) {
      names.emplace_back(check.name);
    }
  }
  return names;
}

std::vector<std::string> IntegrityRuleNames() {
  std::vector<std::string> names;
  for (const IntegrityCheck& check : IntegrityChecks()) {
    if (check.kind == CheckKind::kSourceRule) {
      names.emplace_back(check.name);
    }
  }
  return names;
}

}  // namespace adaexplore
