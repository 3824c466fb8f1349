#pragma once

// The worker protocol as C++ values: decoding the JSON lines a worker sends. The state machine
// and the message shapes are drawn in python/adaexplore_worker/zygote.py and docs/protocol.md.
// Nothing from a worker is trusted: every field is checked, and a malformed line is an error
// value, never a crash.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/result.h"

namespace adaexplore {

inline constexpr int kProtocolVersion = 1;

// What the device can do at most, measured by the worker when it starts (GPU only).
struct DeviceCeilings {
  double copy_bytes_per_s = 0;  // Device-to-device copy, bytes read plus written.
  double bf16_flops_per_s = 0;  // Dense bf16 matrix rate: no arithmetic is faster.
  bool known() const { return copy_bytes_per_s > 0 && bf16_flops_per_s > 0; }
};

struct WorkerHello {
  int protocol = 0;
  int pid = 0;
  std::string python;
  std::string torch;
  std::string triton;
  std::string device_kind;  // "cuda" or "cpu".
  std::string device_name;  // "NVIDIA H200", or the CPU's name.
  nlohmann::json device;    // Everything the worker said about its device.
  DeviceCeilings ceilings;  // Unknown (zeros) on the CPU or when measuring failed.
  int slots = 1;            // Evaluations it runs at once.
  double import_s = 0;
  bool triton_interpret = false;
  std::string harness;  // SHA-256 of the worker's own sources (its checks and timer).

  // What results depend on besides the sources and the profile: the GPU model, the versions of
  // the software that compiles and runs kernels, and the worker's own code.
  std::string Fingerprint() const;
};

struct WorkerEvent {
  enum class Kind { kHello, kStarted, kProgress, kResult };
  Kind kind = Kind::kResult;
  std::string id;       // Job id (all but hello).
  nlohmann::json body;  // The whole message.
};

// Decodes one line. Unknown message types and malformed JSON are kProtocolError.
Result<WorkerEvent> ParseWorkerLine(std::string_view line);

// Validates a hello message: version, device facts, or the worker's own startup error.
Result<WorkerHello> ParseHello(const nlohmann::json& message);

// The hello as a worker sends it, for relaying (a GPU host's hello over NATS): ParseHello of it
// gives the same hello back.
nlohmann::json HelloToJson(const WorkerHello& hello);

}  // namespace adaexplore
