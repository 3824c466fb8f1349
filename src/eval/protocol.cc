#include "eval/protocol.h"

#include <fmt/format.h>

namespace adaexplore {

std::string WorkerHello::Fingerprint() const {
  return fmt::format("{}|{}|torch {}|triton {}|{}|harness {}", device_kind, device_name, torch,
                     triton, triton_interpret ? "interpret" : "compiled", harness.substr(0, 16));
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
  } else {
    return ProtocolError("unknown message type '" + type + "'");
  }
  if (event.kind != WorkerEvent::Kind::kHello) {
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
    hello.device_kind = hello.device.value("kind", "");
    hello.device_name = hello.device.value("name", "");
    hello.slots = std::max(1, m.value("slots", 1));
    hello.import_s = m.value("import_s", 0.0);
    hello.triton_interpret = m.value("triton_interpret", false);
    hello.harness = m.value("harness", "");
    const nlohmann::json ceilings = hello.device.value("ceilings", nlohmann::json::object());
    if (ceilings.is_object()) {
      hello.ceilings.copy_bytes_per_s = ceilings.value("copy_bytes_per_s", 0.0);
      hello.ceilings.bf16_flops_per_s = ceilings.value("bf16_flops_per_s", 0.0);
    }
  } catch (const nlohmann::json::exception& e) {
    return ProtocolError(std::string("malformed hello: ") + e.what());
  }
  if (hello.device_kind != "cuda" && hello.device_kind != "cpu") {
    return ProtocolError("hello names no device kind");
  }
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
          {"import_s", hello.import_s},
          {"triton_interpret", hello.triton_interpret},
          {"harness", hello.harness}};
}

}  // namespace adaexplore
