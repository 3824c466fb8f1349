#pragma once

// The tools `adaexplore mcp` offers (docs/agents.md): their JSON schemas, what a call of each
// evaluates, and its result from the verdicts. The judgement is `eval`'s: the same requests, the
// same evaluator and cache, the same --json object.
//
//   evaluate  a task and a kernel -> the verdict, reason, speedups in both scopes, the check
//   compare   two kernels on one task -> both results and the ratio of their speedups
//   profile   a kernel -> its speed-of-light fraction and bottleneck (docs/profiling.md)
//   problems  a suite's problems, or their sources

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "eval/evaluator.h"
#include "eval/verdict.h"

namespace adaexplore {

// tools/list's `tools`: name, title, description and inputSchema of each.
nlohmann::json McpToolList();

// What a call needs: evaluations, or (problems) its result at once.
struct ToolPlan {
  std::vector<EvalRequest> requests;
  std::optional<nlohmann::json> result;
};

// The plan of a call of `tool` with `arguments`; bad arguments (a missing file, no task, an
// unknown tool) are errors whose message the caller returns as the tool's error. Kernels given
// as source text are written under `scratch`.
Result<ToolPlan> PlanTool(const std::string& tool, const nlohmann::json& arguments,
                          const std::string& scratch);

// The call's result (content, structuredContent, isError) from its evaluations, in request order.
nlohmann::json ToolResult(const std::string& tool, const std::vector<EvalResult>& results);

// A tool's error as a result (isError: true), as MCP asks for failures of the tool itself.
nlohmann::json ToolErrorResult(const std::string& message);

}  // namespace adaexplore
