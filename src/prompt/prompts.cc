#include "prompt/prompts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/enum_names.h"
#include "eval/checks.h"
#include "eval/verdict.h"
#include "sys/fs.h"

namespace adaexplore {
namespace {

const std::set<std::string>& KnownNames() {
  static const std::set<std::string> names = {
      "task_name",   "task_source",  "task_brief",    "answer_format", "language", "language_notes",
      "hardware",    "requirements", "memory_rules",  "pool",          "attempts", "kernels",
      "last_kernel", "guidance",     "edit_feedback", "roofline"};
  return names;
}

Result<PromptTemplate> LoadTemplate(const std::string& dir, const std::string& file) {
  const std::string path = dir + "/" + file;
  ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return PromptTemplate::Parse(text, path, KnownNames());
}

// The line of a role's template after which its user message differs from step to step
// (PromptSet::UserTemplate): what is above it is kept by the providers' prompt caches.
constexpr std::string_view kStableMarker = "<!-- the same in every step above this line -->";

// A task kind's file (prompts/tasks/<kind>.md): what to write, then after this line how to
// answer.
constexpr std::string_view kAnswerMarker = "<!-- answer -->";

std::string Trimmed(const std::string& text) {
  size_t end = text.find_last_not_of(" \n\t\r");
  return end == std::string::npos ? "" : text.substr(0, end + 1);
}

// What the profile's integrity checks reject (eval/checks.h), as one list of phrases.
std::string RejectedWays(const EvalProfile& profile) {
  std::vector<std::string_view> ways;
  for (const IntegrityCheck& check : IntegrityChecks()) {
    if (CheckApplies(check, profile)) {
      ways.push_back(check.catches);
    }
  }
  std::string out;
  for (size_t i = 0; i < ways.size(); ++i) {
    out += i == 0 ? "" : (i + 1 == ways.size() ? "; or " : "; ");  // Phrases hold commas.
    out += ways[i];
  }
  return out;
}

}  // namespace

Result<PromptSet> PromptSet::Load(const std::string& dir, KernelLanguage language,
                                  const EvalProfile& profile) {
  PromptSet set;
  set.language_ = language;
  ASSIGN_OR_RETURN(set.system_, LoadTemplate(dir, "system.md"));
  ASSIGN_OR_RETURN(set.proposer_, LoadUserTemplate(dir, "proposer.md"));
  ASSIGN_OR_RETURN(set.reviser_, LoadUserTemplate(dir, "reviser.md"));
  ASSIGN_OR_RETURN(set.tuner_, LoadUserTemplate(dir, "tuner.md"));
  const std::string notes = language == KernelLanguage::kTriton ? "triton.md" : "cuda.md";
  ASSIGN_OR_RETURN(std::string notes_text, ReadFile(dir + "/" + notes));
  set.language_notes_ = Trimmed(notes_text);
  for (const auto& [kind, name] : EnumTraits<TaskKind>::kNames) {
    const std::string path = fmt::format("{}/tasks/{}.md", dir, name);
    ASSIGN_OR_RETURN(std::string text, ReadFile(path));
    const size_t at = text.find(kAnswerMarker);
    if (at == std::string::npos) {
      return InvalidArgument(
          fmt::format("{} lacks the line '{}' between what to write and how "
                      "to answer",
                      path, kAnswerMarker));
    }
    ASSIGN_OR_RETURN(PromptTemplate brief,
                     PromptTemplate::Parse(text.substr(0, at), path, KnownNames()));
    ASSIGN_OR_RETURN(
        PromptTemplate answer,
        PromptTemplate::Parse(text.substr(at + kAnswerMarker.size()), path, KnownNames()));
    set.kinds_.emplace(kind, TaskText{.brief = std::move(brief),
                                      .answer = std::move(answer),
                                      .requirements = Requirements(profile, language, kind)});
  }
  return set;
}

Result<PromptSet::UserTemplate> PromptSet::LoadUserTemplate(const std::string& dir,
                                                            const std::string& file) {
  const std::string path = dir + "/" + file;
  ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  const size_t at = text.find(kStableMarker);
  if (at == std::string::npos) {
    ASSIGN_OR_RETURN(PromptTemplate step, PromptTemplate::Parse(text, path, KnownNames()));
    return UserTemplate{.step = std::move(step)};
  }
  // Each part parses alone: a section ({{#name}}...{{/name}}) cannot span the line.
  ASSIGN_OR_RETURN(PromptTemplate stable,
                   PromptTemplate::Parse(text.substr(0, at), path, KnownNames()));
  size_t rest = at + kStableMarker.size();
  rest += rest < text.size() && text[rest] == '\n' ? 1 : 0;
  ASSIGN_OR_RETURN(PromptTemplate step,
                   PromptTemplate::Parse(text.substr(rest), path, KnownNames()));
  return UserTemplate{.stable = std::move(stable), .step = std::move(step)};
}

std::string PromptSet::Requirements(const EvalProfile& profile, KernelLanguage language,
                                    TaskKind kind) {
  std::string out;
  // The options a task of this kind is evaluated with (its own benchmark's check, for some).
  const JobOptions job = profile.ToJobOptions(DeviceKind::kCpu, kind);
  const bool fp32 = job.precision == Precision::kFp32;
  if (KindInfo(kind).check == TaskCheck::kOwnBenchmark) {
    out +=
        "- Inputs come in the dtypes the task gives them, and outputs must have the reference's "
        "dtypes. Accumulate reductions and matrix products in float32.\n";
  } else if (fp32) {
    out +=
        "- Inputs and weights are float32. Compute in float32: no autocast, no float16 or "
        "bfloat16 math, ";
    out += language == KernelLanguage::kTriton
               ? "and no TF32: pass `input_precision=\"ieee\"` to every `tl.dot` (Triton's "
                 "default on float32 inputs is TF32, which fails the tolerance).\n"
               : "and no TF32 tensor-core paths.\n";
  } else {
    out += fmt::format(
        "- Inputs and the reference's weights are {0}. ModelNew is moved to the device as you "
        "build it and never cast: make its parameters {0} yourself if you want them so. "
        "Accumulate reductions and matrix products in float32.\n",
        EnumName(job.precision));
  }
  if (job.criterion == Criterion::kScaled) {
    out += fmt::format(
        "- Every output element must satisfy |out - ref| <= {:g} * max|ref| + {:g} * |ref|, "
        "against a {} reference, on {} trials with differently distributed inputs (the task's "
        "own, normal, uniform, scaled, heavy-tailed). NaN or Inf anywhere fails.\n",
        job.atol, job.rtol,
        job.reference_precision == ReferencePrecision::kFp64 ? std::string_view("float64")
                                                             : EnumName(job.precision),
        job.trials);
  } else {
    out += fmt::format(
        "- Outputs must pass torch.allclose(out, ref, atol={:g}, rtol={:g}) on {} random inputs.\n",
        job.atol, job.rtol, job.trials);
  }
  out += "- Outputs must have the reference's shape and dtype.\n";
  if (profile.size_checks && kind == TaskKind::kKernelBench) {
    out +=
        "- A correct kernel is checked again with the task's sizes changed (smaller and odd, "
        "one larger): take every size from the inputs, not from the task's constants.\n";
  }
  out += "- The harness rejects kernels that: " + RejectedWays(profile) + ".";
  if (job.poison_memory) {
    out += " Freed GPU memory is poisoned before your kernel runs (unwritten outputs fail).";
  }
  if (job.fresh_inputs_per_run && job.revalidate_timed) {
    out += " Every timed run uses fresh inputs and is checked again.";
  }
  out += "\n";
  if (job.kernel_trace && profile.pytorch_compute != PytorchCompute::kUnrestricted) {
    out += profile.pytorch_compute == PytorchCompute::kForbidden
               ? fmt::format(
                     "- Your own Triton or CUDA kernels must do the work: PyTorch's compute "
                     "kernels (aten, cuBLAS, cuDNN) may take at most {:g}% of the GPU time.\n",
                     100 * profile.pytorch_compute_share)
               : "- At least one kernel of your own must run in every call; library calls "
                 "(e.g. a cuBLAS GEMM) may do part of the work.\n";
  }
  const bool adaptive = job.timing_precision > 0 || job.timing_budget_ms > 0;
  const std::string runs = adaptive && job.min_timed_runs < job.timed_runs
                               ? fmt::format("{} to {}", job.min_timed_runs, job.timed_runs)
                               : fmt::format("{}", job.timed_runs);
  out += fmt::format(
      "- Speed is the {} of {} timed runs after {} warm-up runs{}, against the "
      "reference's time on the same inputs.",
      StatisticWords(profile.statistic), runs, job.warmup_runs,
      job.l2_flush ? ", with the L2 cache flushed" : "");
  return out;
}

std::string PromptSet::FormatRoofline(const TaskRoofline& roofline) {
  std::string out =
      fmt::format("No kernel can run this task in less than about {:.4g} ms on this GPU",
                  roofline.speed_of_light_ms);
  out += roofline.io_bytes
             ? fmt::format(
                   ": its inputs and outputs are {:.4g} MB, read and written once at the "
                   "GPU's memory bandwidth.",
                   *roofline.io_bytes / 1e6)
             : ".";
  if (roofline.reference_ms) {
    out += fmt::format(" The reference takes {:.4g} ms ({:.0f}x that bound).",
                       *roofline.reference_ms, *roofline.reference_ms / roofline.speed_of_light_ms);
  }
  if (roofline.flops && *roofline.flops > 0) {
    out += fmt::format(
        " The reference does {:.4g} GFLOP of matrix work; algebra that does less "
        "is allowed.",
        *roofline.flops / 1e9);
  }
  return out;
}

std::string PromptSet::FormatKernel(const KernelRecord& kernel, const std::string& title) {
  std::string out = "### " + title + "\n\n```python\n" + Trimmed(kernel.code) + "\n```\n\n";
  if (kernel.verdict == VerdictName(Verdict::kCorrect) && kernel.speedup) {
    out += fmt::format("Result: correct, {:.3g}x the reference{}", *kernel.speedup,
                       kernel.scope.empty() ? "" : " in " + kernel.scope + " time");
    if (kernel.runtime_ms && kernel.reference_ms) {
      out +=
          fmt::format(" ({:.4g} ms against {:.4g} ms)", *kernel.runtime_ms, *kernel.reference_ms);
    }
    if (kernel.call_ms) {
      out += fmt::format("; the call on its stream's events: {:.4g} ms", *kernel.call_ms);
    }
    out += ".\n";
    if (kernel.sol_fraction) {
      out += fmt::format(
          "Speed of light: {:.0f}% (the time to read the inputs and write the outputs once at "
          "this GPU's bandwidth, over this kernel's time).\n",
          100 * *kernel.sol_fraction);
    }
    if (!kernel.profile.empty()) {
      out += "Profile: " + kernel.profile + ".\n";
    }
    if (!kernel.other_sizes.empty()) {
      // "correct at the task's sizes only: wrong at ...", as a sentence.
      out += static_cast<char>(std::toupper(static_cast<unsigned char>(kernel.other_sizes[0]))) +
             kernel.other_sizes.substr(1) +
             ". Read every size from the inputs and mask the last partial block.\n";
    }
    if (!kernel.sanitizer.empty()) {
      out += "Not usable as the best: " + kernel.sanitizer +
             ". Keep every access inside its tensor and synchronise shared memory between "
             "writes and reads.\n";
    }
    return out;
  }
  out += "Result: " + kernel.verdict;
  if (!kernel.reason.empty()) {
    out += ": " + kernel.reason;
  }
  out += "\n";
  if (!kernel.error.empty()) {
    std::string error = kernel.error;
    if (error.size() > kMaxErrorChars) {
      error = "...\n" + error.substr(error.size() - kMaxErrorChars);
    }
    out += "\n```\n" + Trimmed(error) + "\n```\n";
  }
  return out;
}

std::map<std::string, std::string> PromptSet::Values(const PromptInputs& inputs) const {
  std::string rules;
  for (const std::string& rule : inputs.memory_rules) {
    rules += "- " + rule + "\n";
  }
  const TaskText& kind = kinds_.at(inputs.task_kind);
  std::map<std::string, std::string> values = {
      {"task_name", inputs.task_name},
      {"task_source", Trimmed(inputs.task_source)},
      {"language", language_ == KernelLanguage::kTriton ? "Triton" : "CUDA C++"},
      {"language_notes", language_notes_},
      {"hardware", inputs.hardware.empty() ? "an NVIDIA GPU" : inputs.hardware},
      {"requirements", kind.requirements},
      {"memory_rules", Trimmed(rules)},
      {"guidance", Trimmed(inputs.guidance)},
      {"edit_feedback", Trimmed(inputs.edit_feedback)}};
  values["task_brief"] = Trimmed(kind.brief.Render(values));
  values["answer_format"] = Trimmed(kind.answer.Render(values));
  return values;
}

std::vector<ChatMessage> PromptSet::Messages(
    const UserTemplate& user, const std::map<std::string, std::string>& values) const {
  const std::string stable = user.stable ? user.stable->Render(values) : "";
  ChatMessage message{.role = "user", .content = Trimmed(stable + user.step.Render(values))};
  message.cache_prefix = std::min(stable.size(), message.content.size());
  return {{.role = "system", .content = Trimmed(system_->Render(values))}, std::move(message)};
}

std::vector<ChatMessage> PromptSet::Proposer(const PromptInputs& inputs) const {
  std::map<std::string, std::string> values = Values(inputs);
  // Correct kernels are the pool to beat; the rest (a baseline's recent context) are attempts to
  // learn from. Numbered in one sequence, in the order the search chose them.
  std::string pool;
  std::string attempts;
  for (size_t i = 0; i < inputs.kernels.size(); ++i) {
    const KernelRecord& kernel = inputs.kernels[i];
    const bool correct = kernel.verdict == VerdictName(Verdict::kCorrect);
    (correct ? pool : attempts) += FormatKernel(kernel, fmt::format("Kernel {}", i + 1)) + "\n";
  }
  values["pool"] = Trimmed(pool);
  values["attempts"] = Trimmed(attempts);
  values["roofline"] = inputs.roofline ? FormatRoofline(*inputs.roofline) : "";
  return Messages(*proposer_, values);
}

std::vector<ChatMessage> PromptSet::Reviser(const PromptInputs& inputs) const {
  std::map<std::string, std::string> values = Values(inputs);
  if (!inputs.kernels.empty()) {
    values["last_kernel"] = Trimmed(FormatKernel(inputs.kernels.back(), "Latest version"));
  }
  return Messages(*reviser_, values);
}

std::vector<ChatMessage> PromptSet::Tuner(const PromptInputs& inputs) const {
  std::map<std::string, std::string> values = Values(inputs);
  std::string kernels;
  for (size_t i = 0; i < inputs.kernels.size(); ++i) {
    const bool last = i + 1 == inputs.kernels.size();
    kernels += FormatKernel(inputs.kernels[i],
                            last ? fmt::format("Version {} (latest: edit this one)", i + 1)
                                 : fmt::format("Version {}", i + 1)) +
               "\n";
  }
  values["kernels"] = Trimmed(kernels);
  return Messages(*tuner_, values);
}

}  // namespace adaexplore
