#include "cli/report_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "app/export_run.h"
#include "cli/search_flags.h"
#include "core/json_text.h"
#include "report/html_report.h"
#include "report/run_report.h"
#include "sys/fs.h"

namespace adaexplore {
namespace {

std::optional<int64_t> RunOf(const ReportFlags& f) {
  return f.run > 0 ? std::optional<int64_t>(f.run) : std::nullopt;
}

// The run database, as a positional argument (shown in the help) or as --db (hidden: the form
// the other commands take, accepted here too).
void AddDbArgument(CLI::App* command, std::string& path) {
  command->add_option("db", path, "Run database (also --db FILE)");
  command->add_option("--db", path, "Run database")->group("");
}

// The database the flags name, which must exist: reading one never creates it.
Status CheckDb(const ReportFlags& f, std::string_view command) {
  if (f.db_path.empty()) {
    return InvalidArgument(
        fmt::format("{} needs a run database: adaexplore {} RUN_DB (none named, and no {} here)",
                    command, command, kDefaultRunDb));
  }
  if (!std::filesystem::exists(f.db_path)) {
    return NotFound("no run database at " + f.db_path);
  }
  return Status::Ok();
}

}  // namespace

ReportCommands AddReportCommands(CLI::App& app, ReportFlags& f) {
  ReportCommands c;
  c.report = app.add_subcommand("report", "Metrics of the runs in a run database");
  AddDbArgument(c.report, f.db_path);
  c.report->add_option("--run", f.run, "Only this run");
  c.report->add_flag("--json", f.json, "One JSON object (metrics: acc, speedup, fast_1.2, ...)");
  c.report->add_flag("--csv", f.csv, "One CSV row per run and task");
  c.report->add_option("--out", f.out, "Write to this file instead of standard output");
  c.report->add_option("--html", f.html, "Also write the HTML report (one file) here");
  c.export_ = app.add_subcommand(
      "export",
      "Each task's best kernel: KernelBench's layout, and for FlashInfer-Trace definitions "
      "FlashInfer-Bench's (solutions/ and traces/)");
  AddDbArgument(c.export_, f.db_path);
  c.export_->add_option("--out", f.out, "Folder to write into")->required();
  c.export_->add_option("--run", f.run, "Only this run (default: every run; the best wins)");
  c.export_->add_option("--level", f.level,
                        "KernelBench level in the file names (default: each task's own, from "
                        "the levelN folder it was read from; else 0)");
  return c;
}

Result<int> RunReportCommand(const ReportFlags& f) {
  RETURN_IF_ERROR(CheckDb(f, "report"));
  if (f.json && f.csv) {
    return InvalidArgument("--json and --csv: pick one");
  }
  ASSIGN_OR_RETURN(std::vector<RunReport> reports, LoadRunReports(f.db_path, RunOf(f)));
  const std::string text = f.json  ? JsonText(ReportJson(reports), 2) + "\n"
                           : f.csv ? ReportCsv(reports)
                                   : ReportMarkdown(reports);
  if (f.out.empty()) {
    (void)std::fputs(text.c_str(), stdout);
  } else {
    RETURN_IF_ERROR(WriteFileAtomic(f.out, text));
  }
  if (!f.html.empty()) {
    ASSIGN_OR_RETURN(
        std::string page,
        HtmlReport(f.db_path, reports,
                   "adaexplore report: " + std::filesystem::path(f.db_path).filename().string()));
    RETURN_IF_ERROR(WriteFileAtomic(f.html, page));
    (void)std::fprintf(stderr, "HTML report: %s\n", f.html.c_str());
  }
  return 0;
}

Result<int> RunExport(const ReportFlags& f) {
  RETURN_IF_ERROR(CheckDb(f, "export"));
  ASSIGN_OR_RETURN(
      const ExportOutcome outcome,
      ExportBestKernels(
          {.db_path = f.db_path, .out_dir = f.out, .run = RunOf(f), .level = f.level}));
  std::printf(
      "%zu of %zu tasks exported to %s (index.json lists them, eval_results.json has their "
      "results in KernelBench's format; a FlashInfer-Trace definition's Solution and traces are "
      "under solutions/ and traces/)\n",
      outcome.exported, outcome.tasks, f.out.c_str());
  return 0;
}

}  // namespace adaexplore
