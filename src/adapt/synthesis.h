#pragma once

// Task synthesis: the LLM writes new KernelBench-format tasks from 3 random Level-1 problems and
// 3 random torch.nn layers (the reference's "composite" style). A task is kept only if it imports,
// builds and runs one forward pass in an isolated process (python -m adaexplore_worker.check_task,
// its own process group, killed at the time limit) and returns non-empty tensors; a task whose
// code repeats one already kept (comments and blank lines aside) is dropped. Requests go out
// concurrently; at most 3 calls per task wanted.

#include <cstdint>
#include <string>
#include <vector>

#include "core/log.h"
#include "core/result.h"
#include "llm/client.h"
#include "prompt/template.h"
#include "task/source_file.h"

namespace adaexplore {

// torch.nn layers and activations to draw from when no list is given.
const std::vector<std::string>& DefaultTorchLayers();

// Names from a layers file: a JSON {"layers": [{"name": ...}], "activations": [...]} (the
// reference's pytorch_layers_activations.json: both lists are read, 114 modules), a JSON array of
// names, or one name per line.
Result<std::vector<std::string>> ReadLayerNames(const std::string& path);

struct SynthesisOptions {
  int count = 0;  // Tasks wanted.
  std::vector<SourceFile> examples;
  std::vector<std::string> layers;
  uint64_t seed = 0;
  ModelSpec model;
  int64_t max_output_tokens = 0;
  std::string reasoning_effort;
  std::string prompts_dir;
  std::string python;       // Interpreter with torch (the workers' one).
  std::string python_path;  // The folder holding adaexplore_worker.
  std::string device = "cpu";
  double timeout_s = 300;
  std::string out_dir;  // Kept tasks go here as synth_NNN.py.
  Logger logger = NullLogger();
};

struct SynthesisStats {
  int calls = 0;
  int no_code = 0;
  int invalid = 0;
  int duplicates = 0;
  std::vector<std::string> kept;      // Paths, in order.
  std::vector<std::string> problems;  // Why each dropped one was dropped.
};

Result<SynthesisStats> SynthesizeTasks(LlmClient& llm, const SynthesisOptions& options);

// Runs the check in its own process: empty when `path` is a usable task, else why not.
std::string CheckTask(const std::string& path, const SynthesisOptions& options);

}  // namespace adaexplore
