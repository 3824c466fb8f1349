#include "task/flashinfer_solution.h"

#include <fmt/format.h>

#include <algorithm>

#include "task/task_file_name.h"

namespace adaexplore {
namespace {

bool UsesTriton(const std::string& source) {
  return source.find("import triton") != std::string::npos ||
         source.find("from triton") != std::string::npos;
}

std::string Description(const SolutionOrigin& origin) {
  std::string text = fmt::format("Found by adaexplore ({}{})", origin.found,
                                 origin.model.empty() ? "" : ", written by " + origin.model);
  if (origin.speedup) {
    text += fmt::format(": {:.3g}x the definition's reference on {}", *origin.speedup,
                        origin.device.empty() ? "its device" : origin.device);
    if (!origin.on_gpu) {
      text += " (Triton's interpreter: not a GPU speedup)";
    }
  }
  return text + ".";
}

}  // namespace

Result<nlohmann::json> FlashInferSolution(const SourceFile& definition, const std::string& kernel,
                                          const nlohmann::json& facts,
                                          const SolutionOrigin& origin) {
  nlohmann::json solution = nlohmann::json::parse(kernel, nullptr, false);
  if (solution.is_object() && solution.contains("sources") && solution.contains("spec")) {
    solution["name"] = origin.name;  // A seed Solution: its sources and spec as they were.
    solution["definition"] = definition.name;
    return solution;
  }
  const nlohmann::json interface =
      facts.is_object() && facts.contains("interface") && facts["interface"].is_object()
          ? facts["interface"]
          : nlohmann::json();
  if (!interface.contains("entry_point") || !interface["entry_point"].is_string() ||
      !interface.contains("destination_passing_style") ||
      !interface["destination_passing_style"].is_boolean()) {
    return NotFound(fmt::format(
        "{}: its result does not say how its entry point is called (judged before adaexplore "
        "recorded it): evaluate the kernel again with `adaexplore eval`",
        origin.found));
  }
  std::string hardware = origin.on_gpu && !origin.device.empty() ? origin.device : "cuda";
  std::replace(hardware.begin(), hardware.end(), ' ', '_');
  const bool triton = UsesTriton(kernel);
  nlohmann::json dependencies = {"torch"};
  if (triton) {
    dependencies.push_back("triton");
  }
  return nlohmann::json{
      {"name", origin.name},
      {"definition", definition.name},
      {"author", "adaexplore"},
      {"description", Description(origin)},
      {"spec",
       {{"language", triton ? "triton" : "python"},
        {"target_hardware", {hardware}},
        {"entry_point", "main.py::" + interface["entry_point"].get<std::string>()},
        {"dependencies", dependencies},
        {"destination_passing_style", interface["destination_passing_style"]}}},
      {"sources", {{{"path", "main.py"}, {"content", kernel}}}}};
}

std::string FlashInferSolutionName(const SourceFile& definition, int64_t run, int node) {
  return TaskFileStem(fmt::format("adaexplore_{}_r{}_n{}", definition.name, run, node));
}

std::string FlashInferOpType(const SourceFile& definition) {
  const nlohmann::json j = nlohmann::json::parse(definition.source, nullptr, false);
  if (j.is_object() && j.contains("op_type") && j["op_type"].is_string() &&
      !j["op_type"].get<std::string>().empty()) {
    return j["op_type"].get<std::string>();
  }
  return "unknown";
}

std::string FlashInferSolutionPath(const SourceFile& definition, const std::string& solution) {
  return fmt::format("solutions/{}/{}/{}.json", TaskFileStem(FlashInferOpType(definition)),
                     TaskFileStem(definition.name), TaskFileStem(solution));
}

std::string FlashInferTracesPath(const SourceFile& definition) {
  return fmt::format("traces/{}/{}.jsonl", TaskFileStem(FlashInferOpType(definition)),
                     TaskFileStem(definition.name));
}

}  // namespace adaexplore
