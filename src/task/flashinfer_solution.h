#pragma once

// A kernel found for a FlashInfer-Trace definition as FlashInfer-Bench files (the dataset's
// solution.md and trace.md): the kernel as a Solution, and where a trace set keeps it and its
// traces. A kernel that is a Solution already (a seed) keeps its sources and spec, under the name
// given; a bare entry-point file becomes one source, main.py, called as the worker found it when
// it judged the kernel (facts.interface: the entry point and the destination-passing style).
//
//   solutions/<op_type>/<definition>/<solution>.json    traces/<op_type>/<definition>.jsonl

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/result.h"
#include "task/source_file.h"

namespace adaexplore {

// Who found the kernel, and how it did, for the Solution's author and description.
struct SolutionOrigin {
  std::string name;     // The Solution's name (made a plain file name when written).
  std::string model;    // The LLM that wrote it: "openai:gpt-5".
  std::string device;   // Where it was judged: "NVIDIA H100 80GB HBM3", or a CPU's name.
  bool on_gpu = false;  // Judged on a GPU (else in Triton's interpreter on the CPU).
  std::string found;    // "run 3, node 7".
  std::optional<double> speedup;
};

// `kernel` for `definition` (a FlashInfer-Trace task) as a Solution; `facts` are the facts of the
// result that judged it. An error when the kernel is neither a Solution nor a file whose calling
// convention the facts record (a result from before they did: evaluate it again).
Result<nlohmann::json> FlashInferSolution(const SourceFile& definition, const std::string& kernel,
                                          const nlohmann::json& facts,
                                          const SolutionOrigin& origin);

// The name adaexplore gives node `node` of run `run` on `definition`: a plain file name.
std::string FlashInferSolutionName(const SourceFile& definition, int64_t run, int node);

// The definition's op type ("rmsnorm"; "unknown" when its JSON does not say) and the trace set's
// paths, relative to its root, each part a plain file name.
std::string FlashInferOpType(const SourceFile& definition);
std::string FlashInferSolutionPath(const SourceFile& definition, const std::string& solution);
std::string FlashInferTracesPath(const SourceFile& definition);

}  // namespace adaexplore
