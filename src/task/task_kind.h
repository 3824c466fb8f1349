#pragma once

// TaskKind: the format a task file is in, and the one table (KindInfo) that says per kind how it
// is recognised, read, checked, shown to the model and handed to the worker. Callers ask the
// table; no code outside a kind's own files branches on a kind. The worker's counterpart is
// python/adaexplore_worker/kinds/ (one module per kind), and each kind's prompt is
// prompts/tasks/<name>.md. A new kind: its enum value and row here (its name in the row, from
// which the names are derived), its worker module, its prompt file (docs/task-kinds.md); a test
// checks each named kind has both.

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "core/enum_names.h"
#include "core/result.h"

namespace adaexplore {

struct SourceFile;

enum class TaskKind {  // Enumerators count up from 0 (CountTaskKinds).
  kKernelBench,        // A Python file with Model, get_inputs, get_init_inputs.
  kFlashInfer,         // A FlashInfer-Trace definition (JSON) with its workloads.
  kTritonBench,        // A TritonBench-G operator file: reference code, separator, test function.
};

// How a task of a kind is checked.
enum class TaskCheck {
  kProfile,       // By the evaluation profile as it is (eval/profile.h).
  kOwnBenchmark,  // As its own benchmark checks it: its reference in its own dtypes, on its own
                  // inputs, allclose (EvalProfile::ToJobOptions).
};

struct TaskKindInfo {
  // The kind's name: in --json, the worker's job (its module in kinds/), prompts/tasks/<name>.md.
  std::string_view name;
  // Whether the file at `path` with content `source` is of this kind (null: any file is).
  bool (*recognises)(std::string_view path, std::string_view source) = nullptr;
  // What the kind needs beside its file, read into the task (null: nothing), e.g. workloads.
  Status (*read_beside)(SourceFile& task) = nullptr;
  // How the prompts show the task (null: its source as it is).
  std::string (*prompt_source)(const SourceFile& task) = nullptr;
  TaskCheck check = TaskCheck::kProfile;
  std::string_view worker_suffix = ".py";  // The suffix of the task's file in the worker's folder.
  // Whether a candidate may be a JSON file beside Python ones (a FlashInfer-Trace Solution),
  // kept as .json in the worker's folder.
  bool json_candidates = false;
};

// The kinds' own parts (task/flashinfer_definition.h, task/tritonbench_operator.h).
bool IsFlashInferDefinition(std::string_view path, std::string_view source);
Status ReadFlashInferWorkloads(SourceFile& task);
std::string FlashInferPromptSource(const SourceFile& task);
bool IsTritonBenchOperator(std::string_view path, std::string_view source);

// The table: a switch with no default, so a kind without its row does not compile.
constexpr TaskKindInfo KindInfo(TaskKind kind) {
  switch (kind) {
    case TaskKind::kKernelBench:
      return {.name = "kernelbench"};
    case TaskKind::kFlashInfer:
      return {.name = "flashinfer",
              .recognises = IsFlashInferDefinition,
              .read_beside = ReadFlashInferWorkloads,
              .prompt_source = FlashInferPromptSource,
              .check = TaskCheck::kOwnBenchmark,
              .worker_suffix = ".json",
              .json_candidates = true};
    case TaskKind::kTritonBench:
      return {.name = "tritonbench",
              .recognises = IsTritonBenchOperator,
              .check = TaskCheck::kOwnBenchmark};
  }
  return {};  // Not a kind: no name.
}

// How many kinds there are: the enumerators count up from 0 and each has a named row, so none
// can be left out of what is derived from this count.
constexpr size_t CountTaskKinds() {
  size_t count = 0;
  while (!KindInfo(static_cast<TaskKind>(count)).name.empty()) {
    ++count;
  }
  return count;
}

// The names, from the rows, in declaration order.
template <>
struct EnumTraits<TaskKind> {
  static constexpr auto kNames = [] {
    std::array<std::pair<TaskKind, std::string_view>, CountTaskKinds()> names{};
    for (size_t i = 0; i < names.size(); ++i) {
      names[i] = {static_cast<TaskKind>(i), KindInfo(static_cast<TaskKind>(i)).name};
    }
    return names;
  }();
};

// The kind of the task file at `path` with content `source`: the first kind in kNames' order
// whose row recognises it, else the kind that takes any file.
TaskKind DetectTaskKind(std::string_view path, std::string_view source);

// Whether candidates of the task file at `path` may be JSON files (its kind's row, the kind told
// by the path alone): what a folder of candidates for it is searched for.
bool TakesJsonCandidates(std::string_view path);

}  // namespace adaexplore
