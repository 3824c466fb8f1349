#include "mcp/server.h"

#include <fcntl.h>
#include <poll.h>

#include <array>

#include "core/json_text.h"
#include "mcp/tools.h"
#include "sys/poll_for.h"

namespace adaexplore {
namespace {

using nlohmann::json;

// JSON-RPC 2.0's error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;

// The protocol revisions this server speaks, newest first: it answers a client's own when it
// knows it, else its newest.
constexpr std::array<std::string_view, 3> kProtocolVersions = {"2025-06-18", "2025-03-26",
                                                               "2024-11-05"};

constexpr int kIdlePollMs = 1000;

bool ValidId(const json& id) { return id.is_string() || id.is_number_integer(); }

}  // namespace

McpServer::McpServer(Evaluator& evaluator, McpOptions options)
    : evaluator_(evaluator), options_(std::move(options)) {}

void McpServer::Send(const json& message) {
  const std::string line = JsonText(message) + "\n";
  (void)std::fwrite(line.data(), 1, line.size(), options_.out);
  (void)std::fflush(options_.out);
}

void McpServer::Respond(const json& id, json result) {
  Send({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void McpServer::RespondError(const json& id, int code, const std::string& message) {
  Send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

void McpServer::ToolError(const json& id, const std::string& message) {
  Respond(id, ToolErrorResult(message));
}

void McpServer::OnLine(const std::string& line) {
  if (line.find_first_not_of(" \t\r") == std::string::npos) {
    return;
  }
  const json message = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) {
    RespondError(nullptr, kParseError, "not JSON: " + line.substr(0, 200));
    return;
  }
  if (!message.is_object() || message.value("jsonrpc", "") != "2.0" ||
      !message.contains("method") || !message["method"].is_string()) {
    // A response from the client (to nothing we asked) is ignored; anything else is refused.
    if (message.is_object() && (message.contains("result") || message.contains("error"))) {
      return;
    }
    RespondError(message.is_object() && message.contains("id") && ValidId(message["id"])
                     ? message["id"]
                     : json(),
                 kInvalidRequest, "not a JSON-RPC 2.0 request");
    return;
  }
  const std::string method = message["method"];
  const json params = message.value("params", json::object());
  if (!message.contains("id")) {
    OnNotification(method, params);
    return;
  }
  if (!ValidId(message["id"])) {
    RespondError(nullptr, kInvalidRequest, "a request id must be a string or an integer");
    return;
  }
  OnRequest(message["id"], method, params);
}

void McpServer::OnNotification(const std::string& method, const json& params) {
  if (method == "notifications/cancelled" && params.is_object() && params.contains("requestId")) {
    // The evaluations finish (they cannot be taken back from a worker), but no answer is sent.
    for (auto& [number, call] : calls_) {
      if (call.id == params["requestId"]) {
        call.cancelled = true;
      }
    }
  }
  // notifications/initialized and any other notification need nothing.
}

void McpServer::OnRequest(const json& id, const std::string& method, const json& params) {
  if (method == "initialize") {
    const std::string asked = params.is_object() ? params.value("protocolVersion", "") : "";
    std::string_view version = kProtocolVersions.front();
    for (std::string_view known : kProtocolVersions) {
      if (asked == known) {
        version = known;
      }
    }
    initialized_ = true;
    Respond(id, {{"protocolVersion", version},
                 {"capabilities", {{"tools", {{"listChanged", false}}}}},
                 {"serverInfo",
                  {{"name", "adaexplore"},
                   {"title", "adaexplore's kernel evaluation harness"},
                   {"version", options_.version}}},
                 {"instructions",
                  "Evaluate GPU kernels against PyTorch reference programs: `evaluate` judges "
                  "one (correctness, reward hacks, speedup), `compare` two, `profile` says why a "
                  "correct one is slow, `problems` lists and shows tasks."}});
    return;
  }
  if (method == "ping") {
    Respond(id, json::object());
    return;
  }
  if (!initialized_) {
    RespondError(id, kInvalidRequest, "'" + method + "' before 'initialize'");
    return;
  }
  if (method == "tools/list") {
    Respond(id, {{"tools", McpToolList()}});
    return;
  }
  if (method == "tools/call") {
    CallTool(id, params);
    return;
  }
  RespondError(id, kMethodNotFound, "no method '" + method + "'");
}

void McpServer::CallTool(const json& id, const json& params) {
  if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) {
    RespondError(id, kInvalidParams, "tools/call needs the tool's 'name'");
    return;
  }
  const std::string tool = params["name"];
  Result<ToolPlan> plan =
      PlanTool(tool, params.value("arguments", json::object()), options_.scratch);
  if (!plan.ok()) {
    if (plan.status().code() == StatusCode::kNotFound &&
        plan.status().message().starts_with("no tool")) {
      RespondError(id, kInvalidParams, plan.status().message());
    } else {
      ToolError(id, plan.status().message());
    }
    return;
  }
  if (plan->result) {
    Respond(id, *plan->result);
    return;
  }
  const uint64_t number = ++next_call_;
  Call& call = calls_[number];
  call.id = id;
  call.tool = tool;
  if (params.contains("_meta") && params["_meta"].is_object()) {
    call.progress_token = params["_meta"].value("progressToken", json());
  }
  for (EvalRequest& request : plan->requests) {
    job_call_[evaluator_.CacheKey(request).substr(0, 16)] = number;
    const uint64_t eval = evaluator_.Submit(std::move(request));
    call.evals.push_back(eval);
    eval_call_[eval] = number;
  }
  // A cache hit is ready at once: the next Poll delivers it.
}

void McpServer::OnJobPhase(const std::string& job, const std::string& phase) {
  auto it = job_call_.find(job);
  if (it == job_call_.end()) {
    return;
  }
  auto call = calls_.find(it->second);
  if (call == calls_.end() || call->second.progress_token.is_null() || call->second.cancelled) {
    return;
  }
  Call& c = call->second;
  Send({{"jsonrpc", "2.0"},
        {"method", "notifications/progress"},
        {"params",
         {{"progressToken", c.progress_token},
          {"progress", ++c.progress},
          {"message", c.tool + ": " + phase}}}});
}

void McpServer::Deliver(uint64_t eval_id, EvalResult result) {
  auto it = eval_call_.find(eval_id);
  if (it == eval_call_.end()) {
    return;
  }
  const uint64_t number = it->second;
  eval_call_.erase(it);
  Call& call = calls_.at(number);
  call.results[eval_id] = std::move(result);
  if (call.results.size() == call.evals.size()) {
    FinishCall(call);
    for (auto job = job_call_.begin(); job != job_call_.end();) {
      job = job->second == number ? job_call_.erase(job) : std::next(job);
    }
    calls_.erase(number);
  }
}

void McpServer::FinishCall(Call& call) {
  if (call.cancelled) {
    return;
  }
  std::vector<EvalResult> results;
  for (uint64_t eval : call.evals) {
    results.push_back(call.results.at(eval));
  }
  Respond(call.id, ToolResult(call.tool, results));
}

Status McpServer::Serve(const InterruptGuard& guard) {
  const int flags = ::fcntl(options_.in_fd, F_GETFL);
  if (flags >= 0) {
    (void)::fcntl(options_.in_fd, F_SETFL, flags | O_NONBLOCK);
  }
  Status served = Status::Ok();
  while (true) {
    if (InterruptGuard::received() != 0) {
      served = Cancelled("interrupted");
      break;
    }
    if (!eval_call_.empty()) {  // Cache hits too: they wait in the evaluator until polled.
      Result<std::vector<std::pair<uint64_t, EvalResult>>> ready =
          evaluator_.Poll(Clock::now() + Seconds(1), &guard, {options_.in_fd});
      if (!ready.ok()) {
        served = ready.status();
        break;
      }
      for (auto& [id, result] : *ready) {
        Deliver(id, std::move(result));
      }
    } else {
      pollfd in{.fd = options_.in_fd, .events = POLLIN, .revents = 0};
      if (Result<int> ready = PollFor({&in, 1}, std::chrono::milliseconds(kIdlePollMs), &guard);
          !ready.ok()) {
        served = ready.status();
        break;
      }
    }
    std::vector<std::string> lines;
    Result<LineReader::State> state = reader_.ReadAvailable(options_.in_fd, lines);
    for (const std::string& line : lines) {
      OnLine(line);
    }
    if (!state.ok()) {
      RespondError(nullptr, kInvalidRequest, state.status().message());
      reader_ = LineReader();
      continue;
    }
    if (*state == LineReader::State::kEof) {
      break;  // The client went away: nothing is left to answer.
    }
  }
  if (flags >= 0) {
    (void)::fcntl(options_.in_fd, F_SETFL, flags);
  }
  return served;
}

}  // namespace adaexplore
