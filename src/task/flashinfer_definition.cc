#include "task/flashinfer_definition.h"

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sys/fs.h"
#include "task/source_file.h"

namespace adaexplore {

namespace fs = std::filesystem;

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

}  // namespace

bool IsFlashInferDefinition(std::string_view path, std::string_view source) {
  (void)source;
  return path.ends_with(".json");
}

std::string WorkloadsPathFor(const std::string& definition_path, const std::string& op_type,
                             const std::string& name) {
  // .../definitions/<op_type>/<name>.json -> .../workloads/<op_type>/<name>.jsonl
  const fs::path root = fs::path(definition_path).parent_path().parent_path().parent_path();
  return (root / "workloads" / op_type / (name + ".jsonl")).string();
}

Status ReadFlashInferWorkloads(SourceFile& task) {
  nlohmann::json definition = nlohmann::json::parse(task.source, nullptr, false);
  if (!definition.is_object() || !definition.contains("name") || !definition["name"].is_string() ||
      !definition.contains("op_type") || !definition["op_type"].is_string()) {
    return Status::Ok();  // The worker says what is wrong with it, as a task_error.
  }
  const std::string path = WorkloadsPathFor(task.path, definition["op_type"].get<std::string>(),
                                            definition["name"].get<std::string>());
  task.data_root = fs::path(path).parent_path().parent_path().parent_path().string();
  if (!fs::exists(path)) {
    return Status::Ok();  // No workloads: the worker's task_error names what it looked for.
  }
  ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      continue;
    }
    nlohmann::json entry = nlohmann::json::parse(line, nullptr, false);
    if (entry.is_discarded() || !entry.is_object()) {
      return InvalidArgument(fmt::format("{}:{}: not a JSON object", path, number));
    }
    // Each line is a Trace whose workload is the part we need (the worker validates it).
    task.workloads.push_back(entry.contains("workload") ? entry["workload"] : entry);
  }
  return Status::Ok();
}

std::string FlashInferPromptSource(const SourceFile& task) {
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

}  // namespace adaexplore
