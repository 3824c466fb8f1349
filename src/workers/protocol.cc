#include "workers/protocol.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>
#include <type_traits>

#include "core/enum_names.h"
#include "core/json_text.h"
#include "workers/facts.h"

namespace adaexplore {
namespace {

using nlohmann::json;

constexpr std::array<std::pair<FactStatus, std::string_view>, 12> kStatusNames = {{
    {FactStatus::kOk, "ok"},
    {FactStatus::kTaskError, "task_error"},
    {FactStatus::kImportError, "import_error"},
    {FactStatus::kInitError, "init_error"},
    {FactStatus::kForwardError, "forward_error"},
    {FactStatus::kInputsChanged, "inputs_changed"},
    {FactStatus::kTimeout, "timeout"},
    {FactStatus::kMemoryLimit, "memory_limit"},
    {FactStatus::kCrash, "crash"},
    {FactStatus::kProtocolViolation, "protocol_violation"},
    {FactStatus::kCancelled, "cancelled"},
    {FactStatus::kHarnessError, "harness_error"},
}};

bool HasKind(const json& value, std::string_view kind) {
  if (kind == "boolean") {
    return value.is_boolean();
  }
  if (kind == "integer") {
    return value.is_number_integer();
  }
  if (kind == "number") {
    return value.is_number();
  }
  if (kind == "string" || kind == "status" || kind.starts_with("one of ")) {
    return value.is_string();  // Which string: the enum's from_json decides.
  }
  if (kind == "array") {
    return value.is_array();
  }
  if (kind == "object") {
    return value.is_object();
  }
  if (kind == "null") {
    return value.is_null();
  }
  return false;
}

// Whether `value` is of `kinds` ("integer|null": either).
bool HasAnyKind(const json& value, std::string_view kinds) {
  size_t start = 0;
  while (start <= kinds.size()) {
    const size_t bar = std::min(kinds.find('|', start), kinds.size());
    if (HasKind(value, kinds.substr(start, bar - start))) {
      return true;
    }
    start = bar + 1;
  }
  return false;
}

Status Decode(const json& value, const std::string& where, JobOptions& out);
Status Decode(const json& value, const std::string& where, std::vector<SizeSet>& out);
Status Decode(const json& value, const std::string& where, SourceText& out);
Status Decode(const json& value, const std::string& where, TaskText& out);

// A workload: an object, or null.
Status Decode(const json& value, const std::string& where, json& out) {
  if (!value.is_object() && !value.is_null()) {
    return ProtocolError(fmt::format("{} must be an object or null", where));
  }
  out = value;
  return Status::Ok();
}

// A plain field: its JSON type must match exactly (no number for a bool, no negative seed).
template <typename Field>
Status Decode(const json& value, const std::string& where, Field& field) {
  const bool negative_unsigned = std::is_unsigned_v<Field> && value.is_number_integer() &&
                                 !value.is_number_unsigned() && value.get<int64_t>() < 0;
  if (!HasKind(value, JsonKind<Field>()) || negative_unsigned) {
    return ProtocolError(fmt::format("{} = {} is not of type {}", where,
                                     JsonText(value).substr(0, 80), JsonKind<Field>()));
  }
  try {
    field = value.get<Field>();
  } catch (const json::exception& e) {
    return ProtocolError(fmt::format("{}: {}", where, e.what()));
  } catch (const std::invalid_argument& e) {  // A name outside an enum's table (enum_json.h).
    return ProtocolError(fmt::format("{}: {}", where, e.what()));
  }
  return Status::Ok();
}

// Reads every field `visit_fields` names from the object `j` into `out`: a missing key, an
// unknown key or a wrong type is a ProtocolError naming it.
template <typename T, typename VisitFields>
Status DecodeObject(const json& j, const std::string& where, T& out, VisitFields&& visit_fields) {
  if (!j.is_object()) {
    return ProtocolError(fmt::format("{} must be an object", where));
  }
  Status status = Status::Ok();
  std::set<std::string> known;
  visit_fields(out, [&](const char* name, auto& field) {
    known.insert(name);
    if (!status.ok()) {
      return;
    }
    status =
        j.contains(name)
            ? Decode(j[name], where + "." + name, field)
            : ProtocolError(fmt::format("{} lacks '{}': the schema has no defaults", where, name));
  });
  RETURN_IF_ERROR(status);
  for (const auto& [key, value] : j.items()) {
    if (known.count(key) == 0) {
      return ProtocolError(fmt::format("{} has an unknown key '{}'", where, key));
    }
  }
  return Status::Ok();
}

Status Decode(const json& value, const std::string& where, JobOptions& out) {
  return DecodeObject(value, where, out, [](auto& o, auto&& visit) { VisitJobOptions(o, visit); });
}

Status Decode(const json& value, const std::string& where, std::vector<SizeSet>& out) {
  if (!value.is_array()) {
    return ProtocolError(fmt::format("{} must be an array", where));
  }
  out.assign(value.size(), SizeSet{});
  for (size_t i = 0; i < value.size(); ++i) {
    RETURN_IF_ERROR(DecodeObject(value[i], fmt::format("{}[{}]", where, i), out[i],
                                 [](auto& s, auto&& visit) { VisitSizeSet(s, visit); }));
  }
  return Status::Ok();
}

Status Decode(const json& value, const std::string& where, SourceText& out) {
  return DecodeObject(value, where, out, [](auto& t, auto&& visit) {
    visit("filename", t.filename);
    visit("source", t.source);
  });
}

template <typename Text, typename Visitor>
void VisitTaskText(Text& t, Visitor&& visit) {
  visit("filename", t.filename);
  visit("source", t.source);
  visit("kind", t.kind);
  visit("workload", t.workload);
  visit("data_root", t.data_root);
}

Status Decode(const json& value, const std::string& where, TaskText& out) {
  return DecodeObject(value, where, out, [](auto& t, auto&& visit) { VisitTaskText(t, visit); });
}

template <typename T>
json Encode(const T& value) {
  return value;
}

json Encode(const JobOptions& options) { return ToJson(options); }

json Encode(const std::vector<SizeSet>& sets) {
  json j = json::array();
  for (const SizeSet& set : sets) {
    json one = json::object();
    VisitSizeSet(set, [&](const char* name, const auto& field) { one[name] = field; });
    j.push_back(std::move(one));
  }
  return j;
}

json Encode(const SourceText& text) {
  return {{"filename", text.filename}, {"source", text.source}};
}

json Encode(const TaskText& text) {
  json j = json::object();
  VisitTaskText(text, [&](const char* name, const auto& field) { j[name] = field; });
  return j;
}

template <typename Job, typename Visitor>
void VisitEvalJob(Job& job, Visitor&& visit) {
  visit("id", job.id);
  visit("nonce", job.nonce);
  visit("task", job.task);
  visit("candidate", job.candidate);
  visit("options", job.options);
  visit("timeout_s", job.timeout_s);
  visit("memory_limit_mb", job.memory_limit_mb);
  visit("reference_key", job.reference_key);
}

}  // namespace

std::string_view FactStatusName(FactStatus status) {
  return NameIn(kStatusNames, status, "harness_error");
}

std::optional<FactStatus> ParseFactStatus(std::string_view name) {
  return ValueIn(kStatusNames, name);
}

std::vector<FactStatus> AllFactStatuses() {
  std::vector<FactStatus> all;
  for (const auto& [s, name] : kStatusNames) {
    all.push_back(s);
  }
  return all;
}

Result<FactStatus> StatusOf(const json& facts) {
  if (!facts.is_object() || !facts.contains("status") || !facts["status"].is_string()) {
    return ProtocolError("facts without a status");
  }
  const std::string name = facts["status"].get<std::string>();
  if (std::optional<FactStatus> status = ParseFactStatus(name)) {
    return *status;
  }
  return ProtocolError(fmt::format("facts.status '{}' is not a declared status", name));
}

json ToJson(const JobOptions& options) {
  json j = json::object();
  VisitJobOptions(options, [&](const char* name, const auto& field) { j[name] = Encode(field); });
  return j;
}

Result<JobOptions> JobOptionsFromJson(const json& j) {
  JobOptions options;
  RETURN_IF_ERROR(Decode(j, "options", options));
  return options;
}

TaskText ToTaskText(const SourceFile& task) {
  return TaskText{.filename = task.name + std::string(KindInfo(task.kind).worker_suffix),
                  .source = task.source,
                  .kind = task.kind,
                  .workload = task.workload.value_or(json()),
                  .data_root = task.data_root};
}

json ToJson(const EvalJob& job) {
  json j = {{"type", "eval"}};
  VisitEvalJob(job, [&](const char* name, const auto& field) { j[name] = Encode(field); });
  return j;
}

Result<EvalJob> EvalJobFromJson(const json& j) {
  if (!j.is_object() || j.value("type", json()) != "eval") {
    return ProtocolError("job is not an object of type 'eval'");
  }
  json rest = j;
  rest.erase("type");
  EvalJob job;
  RETURN_IF_ERROR(
      DecodeObject(rest, "job", job, [](auto& e, auto&& visit) { VisitEvalJob(e, visit); }));
  return job;
}

const std::vector<std::pair<std::string_view, std::string_view>>& FactFields() {
  // In the order of python/adaexplore_worker/protocol/facts.py's Facts.
  static const std::vector<std::pair<std::string_view, std::string_view>> kFields = {
      {"status", "status"},
      {"phase", "string"},    // The phase a killed or crashed child was in.
      {"message", "string"},  // What a protocol violation was.
      {"exit_code", "integer|null"},
      {"signal", "integer|null"},
      {"exit", "object"},
      {"memory_limit_mb", "number"},
      {"limit_s", "number"},  // The time limit a timeout hit.
      {"error", "object"},    // {type, message, traceback, triton_compile, cuda_error, ...}
      {"phases", "object"},   // Seconds per phase.
      {"notes", "array"},
      {"trials", "array"},
      {"judge", "object"},      // The outputs compared out of the candidate's reach (judge.py).
      {"interface", "object"},  // How a FlashInfer candidate is called (kinds/flashinfer.py).
      {"determinism", "object"},
      {"determinism_passed", "boolean"},
      {"reference", "object"},
      {"device_name", "string"},
      {"flags_changed_by_import", "array"},
      {"patched", "array"},
      {"dispatcher_overrides", "array"},
      {"runtime_findings", "array"},
      {"threads_left_running", "array"},
      {"os_threads_left_running", "integer"},
      {"threads_started", "integer"},
      {"null_kernels", "object"},
      {"roofline", "object"},
      {"expert", "object"},
      {"shrink", "object"},      // A smoke test's smaller task: factor, applies, changed.
      {"task_sizes", "object"},  // A KernelBench task's module-level integers as loaded.
      {"resize", "object"},      // Another size set (the `sizes` option): applies, changed.
      {"size_sets", "array"},    // The size_sets option's sets, checked in this job.
      {"sanitizer", "array"},    // compute-sanitizer's runs (the `sanitize` option).
      {"profile", "object"},     // A hardware profile of the call: tool, kernels, call_us.
      {"poisoned_free_blocks", "integer"},
      {"timing", "object"},
      {"kernel_trace", "object"},
      {"reference_trace", "object"},  // The reference's call, traced the same way (trace.py).
      {"swallowed", "array"},
      {"launches", "object"},
      {"reference_cache", "string"},  // hit, stored, not_stored, changed (refcache.py).
      {"gpu_busy_ms", "number"},
      {"static", "object"},
      {"wall_s", "number"},
      {"waited_s", "number"},  // Of wall_s, not counted against the limit.
      {"child_pid", "integer"},
      {"peak_rss_mb", "number"},
      {"stdout", "string"},
      {"stderr", "string"},
      {"stray_lines", "integer"},
      {"threads_checked", "object"},  // The zygote's sweeps of the child's threads.
      {"containment", "object"},
  };
  return kFields;
}

Status ValidateFacts(const json& facts) {
  RETURN_IF_ERROR(StatusOf(facts).status());
  const auto& fields = FactFields();
  for (const auto& [key, value] : facts.items()) {
    const std::string& name = key;  // A structured binding cannot be captured before C++20.
    auto it = std::find_if(fields.begin(), fields.end(),
                           [&](const auto& field) { return field.first == name; });
    if (it == fields.end()) {
      return ProtocolError(fmt::format("facts.{} is not in the schema", key));
    }
    if (!HasAnyKind(value, it->second)) {
      return ProtocolError(fmt::format("facts.{} = {} is not of type {}", key,
                                       JsonText(value).substr(0, 80), it->second));
    }
  }
  return Status::Ok();
}

json HarnessFacts(FactStatus status, std::string_view message, std::string_view phase) {
  return {{"status", FactStatusName(status)},
          {"message", message},
          {"phase", phase},
          {"error", {{"type", "Pool"}, {"message", message}, {"traceback", ""}}}};
}

json SchemaFields() {
  json options = json::object();
  const JobOptions defaults;
  VisitJobOptions(defaults, [&](const char* name, const auto& field) {
    options[name] = JsonKind<std::decay_t<decltype(field)>>();
  });
  json facts = json::object();
  for (const auto& [name, kind] : FactFields()) {
    facts[std::string(name)] = kind;
  }
  json statuses = json::object();
  for (FactStatus s : AllFactStatuses()) {
    statuses[std::string(FactStatusName(s))] = "status";
  }
  return {
      {"options", options}, {"facts", facts}, {"nested", NestedFactFields()}, {"status", statuses}};
}

std::string WorkerHello::Fingerprint() const {
  return fmt::format("{}|{}|torch {}|triton {}|{}|harness {}", EnumName(device_kind), device_name,
                     torch, triton, triton_interpret ? "interpret" : "compiled",
                     harness.substr(0, 16));
}

bool IsTaskPhase(std::string_view phase) {
  return phase == "queued" || phase == "starting" || phase == "load_task" || phase == "reference";
}

Result<WorkerEvent> ParseWorkerLine(std::string_view line) {
  nlohmann::json message = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded() || !message.is_object()) {
    return ProtocolError("not a JSON object: " + std::string(line.substr(0, 200)));
  }
  const std::string type = message.value("type", "");
  WorkerEvent event;
  if (type == "hello") {
    event.kind = WorkerEvent::Kind::kHello;
  } else if (type == "started") {
    event.kind = WorkerEvent::Kind::kStarted;
  } else if (type == "progress") {
    event.kind = WorkerEvent::Kind::kProgress;
  } else if (type == "result") {
    event.kind = WorkerEvent::Kind::kResult;
  } else if (type == "stopping") {
    event.kind = WorkerEvent::Kind::kStopping;
  } else {
    return ProtocolError("unknown message type '" + type + "'");
  }
  if (event.kind != WorkerEvent::Kind::kHello && event.kind != WorkerEvent::Kind::kStopping) {
    if (!message.contains("id") || !message["id"].is_string()) {
      return ProtocolError("'" + type + "' message without a string id");
    }
    event.id = message["id"].get<std::string>();
  }
  if (event.kind == WorkerEvent::Kind::kResult &&
      (!message.contains("facts") || !message["facts"].is_object())) {
    return ProtocolError("result message without facts");
  }
  event.body = std::move(message);
  return event;
}

Result<WorkerHello> ParseHello(const nlohmann::json& m) {
  WorkerHello hello;
  hello.protocol = m.value("protocol", 0);
  if (hello.protocol != kProtocolVersion) {
    return ProtocolError(fmt::format("worker speaks protocol version {}, this build speaks {}",
                                     hello.protocol, kProtocolVersion));
  }
  if (m.contains("error") && m["error"].is_string()) {
    return Unavailable("the worker could not start: " + m["error"].get<std::string>());
  }
  try {
    hello.pid = m.value("pid", 0);
    hello.python = m.value("python", "");
    hello.torch = m.value("torch", "");
    hello.triton = m.value("triton", "");
    hello.device = m.value("device", nlohmann::json::object());
    hello.device_name = hello.device.value("name", "");
    hello.slots = std::max(1, m.value("slots", 1));
    hello.ahead = std::max(0, m.value("ahead", 0));
    hello.import_s = m.value("import_s", 0.0);
    hello.triton_interpret = m.value("triton_interpret", false);
    hello.harness = m.value("harness", "");
    hello.containment = m.value("containment", nlohmann::json::object());
    hello.compute_sanitizer = m.value("compute_sanitizer", nlohmann::json::object());
    const nlohmann::json ceilings = hello.device.value("ceilings", nlohmann::json::object());
    if (ceilings.is_object()) {
      hello.ceilings.copy_bytes_per_s = ceilings.value("copy_bytes_per_s", 0.0);
      hello.ceilings.bf16_flops_per_s = ceilings.value("bf16_flops_per_s", 0.0);
      hello.ceilings.fp32_flops_per_s = ceilings.value("fp32_flops_per_s", 0.0);
      hello.ceilings.sm = {.registers = ceilings.value("sm_registers", int64_t{0}),
                           .shared_bytes = ceilings.value("sm_shared_bytes", int64_t{0}),
                           .threads = ceilings.value("sm_threads", int64_t{0}),
                           .sms = ceilings.value("sms", int64_t{0})};
    }
  } catch (const nlohmann::json::exception& e) {
    return ProtocolError(std::string("malformed hello: ") + e.what());
  }
  std::optional<DeviceKind> kind = EnumFromName<DeviceKind>(
      hello.device.is_object() ? hello.device.value("kind", "") : std::string());
  if (!kind) {
    return ProtocolError("hello names no device kind (cuda or cpu)");
  }
  hello.device_kind = *kind;
  return hello;
}

nlohmann::json HelloToJson(const WorkerHello& hello) {
  return {{"type", "hello"},
          {"protocol", hello.protocol},
          {"pid", hello.pid},
          {"python", hello.python},
          {"torch", hello.torch},
          {"triton", hello.triton},
          {"device", hello.device},
          {"slots", hello.slots},
          {"ahead", hello.ahead},
          {"import_s", hello.import_s},
          {"triton_interpret", hello.triton_interpret},
          {"harness", hello.harness}};
}

}  // namespace adaexplore
