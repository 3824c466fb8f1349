#include "eval/checks.h"

namespace adaexplore {

const std::vector<IntegrityRule>& IntegrityRules() {
  static const std::vector<IntegrityRule> rules = {
      {"model_inheritance",
       "ModelNew must derive from nn.Module only; inheriting the reference runs PyTorch, not a "
       "kernel"},
      {"try_except", "a try/except can fall back to PyTorch when the kernel fails; let it fail"},
      {"torch_compile", "torch.compile is not a hand-written kernel"},
      {"threads", "threads can finish work after the timer has stopped"},
      {"streams", "work on other CUDA streams can escape the timed stream"},
      {"precision_flags", "precision switches change the numerics of the whole process"},
      {"timer_patch", "rebinding timers or synchronisation falsifies timing"},
      {"lazy_tensor", "tensor subclasses can defer work until after timing"},
      {"harness_access",
       "a kernel has no reason to reach into the harness (gc, frames, sys.modules, /proc, raw "
       "file descriptors, signals, tracing)"},
      {"dynamic_code",
       "code built at run time with exec/compile escapes every check on the source"},
  };
  return rules;
}

const IntegrityRule* FindIntegrityRule(std::string_view name) {
  for (const IntegrityRule& rule : IntegrityRules()) {
    if (rule.name == name) {
      return &rule;
    }
  }
  return nullptr;
}

std::vector<std::string> IntegrityRuleNames() {
  std::vector<std::string> names;
  for (const IntegrityRule& rule : IntegrityRules()) {
    names.emplace_back(rule.name);
  }
  return names;
}

}  // namespace adaexplore
