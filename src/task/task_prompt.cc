#include "task/task_prompt.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace adaexplore {
namespace {

std::string Str(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// "hidden_states [batch_size, hidden_size] bfloat16" for each tensor of `tensors`.
std::string Tensors(const nlohmann::json& tensors, std::string* names) {
  std::string out;
  for (const auto& [name, spec] : tensors.items()) {
    std::string shape = "scalar";
    if (spec.contains("shape") && spec["shape"].is_array()) {
      shape.clear();
      for (const nlohmann::json& axis : spec["shape"]) {
        shape += (shape.empty() ? "" : ", ") +
                 (axis.is_string() ? axis.get<std::string>() : axis.dump());
      }
      shape = "[" + shape + "]";
    }
    out += fmt::format("#   {} {} {}\n", name, shape, Str(spec, "dtype"));
    *names += (names->empty() ? "" : ", ") + name;
  }
  return out;
}

std::string Definition(const SourceFile& task) {
  const nlohmann::json d = nlohmann::json::parse(task.source, nullptr, false);
  if (!d.is_object() || !d.contains("reference")) {
    return task.source;  // Not a definition the worker will accept either: shown as it is.
  }
  std::string out = fmt::format("# FlashInfer-Trace definition {} (op_type {})\n", Str(d, "name"),
                                Str(d, "op_type"));
  if (!Str(d, "description").empty()) {
    out += "# " + Str(d, "description") + "\n";
  }
  out += "# Axes:\n";
  const nlohmann::json axes = d.value("axes", nlohmann::json::object());
  for (const auto& [axis, spec] : axes.items()) {
    out += Str(spec, "type") == "const"
               ? fmt::format("#   {} = {} (const)\n", axis, spec.value("value", 0))
               : fmt::format("#   {} (var: set by each workload)\n", axis);
  }
  std::string inputs;
  std::string outputs;
  out += "# Inputs:\n" + Tensors(d.value("inputs", nlohmann::json::object()), &inputs);
  out += "# Outputs:\n" + Tensors(d.value("outputs", nlohmann::json::object()), &outputs);
  const nlohmann::json constraints = d.value("constraints", nlohmann::json::array());
  for (const nlohmann::json& c : constraints) {
    out += "# Constraint: " + (c.is_string() ? c.get<std::string>() : c.dump()) + "\n";
  }
  if (!task.workloads.empty()) {
    std::string sizes;
    for (const nlohmann::json& w : task.workloads) {
      sizes += (sizes.empty() ? "" : "; ") + w.value("axes", nlohmann::json::object()).dump();
    }
    out += fmt::format("# Workloads ({}): {}\n", task.workloads.size(), sizes);
  }
  out += fmt::format("# Entry point: run({}) -> {}\n\n", inputs, outputs);
  return out + Str(d, "reference");
}

}  // namespace

std::string PromptSource(const SourceFile& task) {
  return task.kind == TaskKind::kFlashInfer ? Definition(task) : task.source;
}

}  // namespace adaexplore
