#pragma once

// `adaexplore mcp`: the evaluation harness as a Model Context Protocol server for coding agents
// (docs/agents.md). JSON-RPC 2.0 over stdio, one message per line (MCP 2025-06-18): the
// `initialize` handshake, `ping`, `tools/list`, `tools/call`, progress notifications for a call
// that asks for them, and cancellation. One warm evaluator serves every call for the server's
// lifetime; a tool call's evaluations run while the server goes on reading requests, and it
// answers when they are done. Bad arguments are tool errors, a malformed message a JSON-RPC
// error; neither ends the server. It ends when its input closes or on a signal.
//
//   McpServer server(*evaluator, {.in_fd = 0, .out = stdout, .scratch = dir});
//   RETURN_IF_ERROR(server.Serve(guard));

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "eval/evaluator.h"
#include "sys/line_reader.h"
#include "sys/signals.h"

namespace adaexplore {

struct McpOptions {
  int in_fd = 0;
  FILE* out = stdout;
  std::string scratch;  // Where kernels given as source text are written.
  std::string version;  // The server's, for `initialize`.
};

class McpServer {
 public:
  McpServer(Evaluator& evaluator, McpOptions options);

  // Serves until the input closes (Ok) or a signal arrives (Cancelled).
  Status Serve(const InterruptGuard& guard);

  // The pool's progress callback: a job's phase (forwarded as a progress notification to the
  // call that asked for progress and waits on that job).
  void OnJobPhase(const std::string& job, const std::string& phase);

  // Handles one line of input (exposed for tests): a request, a notification or garbage.
  void OnLine(const std::string& line);

 private:
  // A tools/call waiting on its evaluations.
  struct Call {
    nlohmann::json id;
    std::string tool;
    nlohmann::json progress_token;  // Null: the client asked for no progress.
    int progress = 0;
    std::vector<uint64_t> evals;
    std::map<uint64_t, EvalResult> results;
    bool cancelled = false;
  };

  void OnRequest(const nlohmann::json& id, const std::string& method, const nlohmann::json& params);
  void OnNotification(const std::string& method, const nlohmann::json& params);
  void CallTool(const nlohmann::json& id, const nlohmann::json& params);
  // Starts the evaluations of a tool call; a tool error is returned as an error Status.
  Status StartCall(Call& call, const nlohmann::json& args);
  void FinishCall(Call& call);
  void Deliver(uint64_t eval_id, EvalResult result);

  void Send(const nlohmann::json& message);
  void Respond(const nlohmann::json& id, nlohmann::json result);
  void RespondError(const nlohmann::json& id, int code, const std::string& message);
  void ToolError(const nlohmann::json& id, const std::string& message);

  Evaluator& evaluator_;
  McpOptions options_;
  LineReader reader_;
  bool initialized_ = false;
  uint64_t next_call_ = 0;
  std::map<uint64_t, Call> calls_;            // By our own call number.
  std::map<uint64_t, uint64_t> eval_call_;    // Evaluator id -> call number.
  std::map<std::string, uint64_t> job_call_;  // Pool job id -> call number (progress).
};

}  // namespace adaexplore
