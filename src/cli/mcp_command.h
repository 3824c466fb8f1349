#pragma once

// `adaexplore mcp`: the evaluation harness as an MCP server on stdio (mcp/server.h,
// docs/agents.md), for coding agents. Takes eval's evaluation flags; needs no LLM key.
//
//   adaexplore mcp [--device cpu] [--profile strict] [--slots 2] [--no-cache] ...

#include <CLI/CLI.hpp>

#include "cli/eval_flags.h"
#include "core/result.h"

namespace adaexplore {

void AddMcpCommand(CLI::App& app, EvalFlags& flags);
Result<int> RunMcp(const EvalFlags& flags);

}  // namespace adaexplore
