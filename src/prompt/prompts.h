#pragma once

// PromptSet: the messages for each role of the search (proposer, reviser, tuner), built from the
// template files in prompts/ (prompt/template.h) and what the search knows: the task, the
// hardware, the evaluation profile's requirements (stated concretely, so the model does not
// spend steps on kernels the harness will reject), the skill memory and the context kernels with
// their figures. Loaded once; rendering is const and thread-safe.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/enum_names.h"
#include "core/result.h"
#include "eval/profile.h"
#include "llm/chat.h"
#include "prompt/template.h"
#include "task/task_kind.h"

namespace adaexplore {

enum class KernelLanguage { kTriton, kCuda };

template <>
struct EnumTraits<KernelLanguage> {
  static constexpr std::array<std::pair<KernelLanguage, std::string_view>, 2> kNames = {{
      {KernelLanguage::kTriton, "triton"},
      {KernelLanguage::kCuda, "cuda"},
  }};
};

// One kernel as a prompt shows it: its code and what the harness said.
struct KernelRecord {
  int node = 0;
  std::string code;
  std::string verdict;  // "correct", "incorrect", "compile_error", ...
  std::string reason;
  std::string error;  // Full error text; the prompt keeps its end.
  std::optional<double> speedup;
  std::optional<double> runtime_ms;
  std::optional<double> reference_ms;
  // The time they compare ("gpu", "kernel"; empty: the call's), and the call's own time where
  // that is another (the host's launching included).
  std::string scope;
  std::optional<double> call_ms;
  // A correct kernel's distance from the speed of light (0-1) and its profile's line
  // (eval/kernel_profile.h), when measured: why it is slow, not only that it is.
  std::optional<double> sol_fraction;
  std::string profile;
  // A correct kernel wrong at another size set of the task: what it is, where and how
  // (SizesOnlyMark, eval/size_checks.h).
  std::string other_sizes;
  // A correct kernel compute-sanitizer found errors in or could not run (eval/sanitizer.h).
  std::string sanitizer;
};

// What any kernel of the task must do on this GPU, for the proposer: the speed-of-light time
// (its inputs read and outputs written once at the copy bandwidth) and what sets it, when a GPU
// evaluation measured it.
struct TaskRoofline {
  double speed_of_light_ms = 0;
  std::optional<double> io_bytes;      // The inputs and outputs.
  std::optional<double> flops;         // The reference's matrix-unit work.
  std::optional<double> reference_ms;  // The reference's time.
};

struct PromptInputs {
  std::string task_name;
  std::string task_source;  // The task as the prompts show it (task/task_prompt.h).
  TaskKind task_kind = TaskKind::kKernelBench;
  std::string hardware;  // "NVIDIA H200".
  std::vector<std::string> memory_rules;
  std::vector<KernelRecord> kernels;  // Proposer: the pool. Reviser: the last is used. Tuner: all.
  std::string guidance;               // Tuner: the reviser's advice.
  std::string edit_feedback;          // Tuner: edits of the last step that did not apply.
  std::optional<TaskRoofline> roofline;  // Proposer: the task's speed of light.
};

class PromptSet {
 public:
  static constexpr size_t kMaxErrorChars = 4000;  // Per kernel; the end of a traceback matters.

  // Reads system.md, proposer.md, reviser.md, tuner.md and the language's notes from `dir`.
  static Result<PromptSet> Load(const std::string& dir, KernelLanguage language,
                                const EvalProfile& profile);

  std::vector<ChatMessage> Proposer(const PromptInputs& inputs) const;
  std::vector<ChatMessage> Reviser(const PromptInputs& inputs) const;
  std::vector<ChatMessage> Tuner(const PromptInputs& inputs) const;

  // The requirements paragraph for `profile` and a task of `kind` (exposed for tests and docs).
  static std::string Requirements(const EvalProfile& profile, KernelLanguage language,
                                  TaskKind kind = TaskKind::kKernelBench);
  // The proposer's speed-of-light paragraph.
  static std::string FormatRoofline(const TaskRoofline& roofline);
  // One kernel with its figures, as the templates' kernel lists show it.
  static std::string FormatKernel(const KernelRecord& kernel, const std::string& title);

 private:
  std::map<std::string, std::string> Values(const PromptInputs& inputs) const;
  // A role's user message: the part that is the same in every call of the role for a task (up
  // to the line kStableMarker: the task, its requirements, notes and rules), then the step's own
  // part. A template without the line is all the step's.
  struct UserTemplate {
    std::optional<PromptTemplate> stable;
    PromptTemplate step;
  };
  static Result<UserTemplate> LoadUserTemplate(const std::string& dir, const std::string& file);
  std::vector<ChatMessage> Messages(const UserTemplate& user,
                                    const std::map<std::string, std::string>& values) const;

  // What depends on the task's kind: prompts/tasks/<kind>.md and the requirements.
  struct TaskText {
    PromptTemplate brief;   // What to write.
    PromptTemplate answer;  // How to answer.
    std::string requirements;
  };

  KernelLanguage language_ = KernelLanguage::kTriton;
  std::string language_notes_;
  std::map<TaskKind, TaskText> kinds_;
  std::optional<PromptTemplate> system_;
  std::optional<UserTemplate> proposer_, reviser_, tuner_;
};

}  // namespace adaexplore
