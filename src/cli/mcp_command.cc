#include "cli/mcp_command.h"

#include "app/run_setup.h"
#include "config/config.h"
#include "core/json_log.h"
#include "mcp/server.h"
#include "sys/fs.h"
#include "sys/signals.h"

namespace adaexplore {

void AddMcpCommand(CLI::App& app, EvalFlags& f) {
  CLI::App* mcp = app.add_subcommand(
      "mcp", "Serve the evaluation harness to coding agents: an MCP server on stdio");
  AddJudgingFlags(*mcp, f);
  mcp->add_option("--config", f.judging.config_path,
                  "TOML configuration (default ./adaexplore.toml)");
  mcp->add_option("--log-level", f.judging.log_level, "trace, debug, info, warn (default), error");
}

Result<int> RunMcp(const EvalFlags& flags) {
  ASSIGN_OR_RETURN(Config config, LoadJudgingConfig(flags.judging));
  // stdout carries the protocol alone: logs go to stderr, as JSON lines.
  ASSIGN_OR_RETURN(Logger logger, MakeCommandLogger(config.log_level, /*json=*/true));
  InterruptGuard guard;
  ASSIGN_OR_RETURN(TempDir scratch, TempDir::Create("adaexplore-run-"));
  McpServer* server = nullptr;  // Set before any job runs: the pool reports phases to it.
  ASSIGN_OR_RETURN(std::unique_ptr<Evaluator> evaluator,
                   StartEvaluator(config, flags.refresh, logger, scratch, guard,
                                  [&server](const std::string& job, const std::string& phase) {
                                    if (server != nullptr) {
                                      server->OnJobPhase(job, phase);
                                    }
                                  }));
  McpServer mcp(
      *evaluator,
      {.in_fd = 0, .out = stdout, .scratch = scratch.path(), .version = ADAEXPLORE_VERSION});
  server = &mcp;
  const Status served = mcp.Serve(guard);
  server = nullptr;
  if (served.code() == StatusCode::kCancelled) {
    return 130;
  }
  RETURN_IF_ERROR(served);
  return 0;
}

}  // namespace adaexplore
