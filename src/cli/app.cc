#include "cli/app.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>

#include "cli/adapt_command.h"
#include "cli/bench_command.h"
#include "cli/did_you_mean.h"
#include "cli/eval_command.h"
#include "cli/llm_command.h"
#include "cli/mcp_command.h"
#include "cli/memory_command.h"
#include "cli/report_command.h"
#include "cli/run_command.h"
#include "cli/worker_command.h"
#include "ui/status_line.h"

#ifndef ADAEXPLORE_VERSION
#define ADAEXPLORE_VERSION "0.0.0"
#endif

namespace adaexplore {

int ExitCodeFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk:
      return 0;
    case StatusCode::kCancelled:
      return 130;
    case StatusCode::kInvalidArgument:
    case StatusCode::kParseError:
    case StatusCode::kNotFound:
      return 2;
    default:
      return 1;
  }
}

namespace {

// A long command's failure under its --json: one JSON line on stderr like its progress lines
// ({"event": "error", "message": ..., "exit_code": ...}), and the exit code it stands for.
Result<int> JsonError(bool json, Result<int> result) {
  if (result.ok() || !json) {
    return result;
  }
  const int code = ExitCodeFor(result.status());
  StatusLine(stderr, StatusLine::Format::kJson)
      .Message(result.status().message(), {{"event", "error"}, {"exit_code", code}});
  return code;
}

}  // namespace

Result<int> RunCli(int argc, char** argv) {
  CLI::App app{"adaexplore: LLM-driven GPU kernel search with a trustworthy evaluation harness"};
  app.set_version_flag("--version", ADAEXPLORE_VERSION);
  app.require_subcommand(1);
  EvalFlags eval_flags;
  AddEvalCommand(app, eval_flags);
  RunFlags run_flags;
  AddRunCommand(app, run_flags);
  LlmFlags llm_flags;
  LlmCommands llm = AddLlmCommand(app, llm_flags);
  AdaptFlags adapt_flags;
  AddAdaptCommand(app, adapt_flags);
  MemoryFlags memory_flags;
  MemoryCommands memory = AddMemoryCommand(app, memory_flags);
  BenchFlags bench_flags;
  AddBenchCommand(app, bench_flags);
  ReportFlags report_flags;
  ReportCommands report = AddReportCommands(app, report_flags);
  WorkerFlags worker_flags;
  AddWorkerCommand(app, worker_flags);
  EvalFlags mcp_flags;
  AddMcpCommand(app, mcp_flags);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (app.exit(e) == 0) {  // Prints help, version or the usage error.
      return 0;              // --help, --version.
    }
    (void)std::fputs(DidYouMean(app, std::vector<std::string>(argv + 1, argv + argc)).c_str(),
                     stderr);
    return 2;  // Every usage error, whatever CLI11's own code for it.
  }
  if (app.got_subcommand("eval")) {
    return JsonError(eval_flags.json, RunEval(eval_flags));
  }
  if (app.got_subcommand("run")) {
    return JsonError(run_flags.json, RunSearch(run_flags));
  }
  if (llm.ask->parsed()) {
    return RunLlmAsk(llm_flags);
  }
  if (llm.edits->parsed()) {
    return RunLlmEdits(llm_flags);
  }
  if (app.got_subcommand("adapt")) {
    return JsonError(adapt_flags.json, RunAdapt(adapt_flags));
  }
  if (app.got_subcommand("memory")) {
    return RunMemory(memory, memory_flags);
  }
  if (app.got_subcommand("bench")) {
    return JsonError(bench_flags.json, RunBench(bench_flags));
  }
  if (app.got_subcommand("worker")) {
    return RunWorkerCommand(worker_flags);
  }
  if (app.got_subcommand("mcp")) {
    return RunMcp(mcp_flags);
  }
  if ((report.report->parsed() || report.export_->parsed()) && report_flags.db_path.empty() &&
      std::filesystem::exists(kDefaultRunDb)) {
    report_flags.db_path = kDefaultRunDb;  // What `run` writes here by default.
  }
  if (report.report->parsed()) {
    return RunReportCommand(report_flags);
  }
  if (report.export_->parsed()) {
    return RunExport(report_flags);
  }
  return InvalidArgument("unknown command");
}

}  // namespace adaexplore
