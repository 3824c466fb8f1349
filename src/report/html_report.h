#pragma once

// The HTML report: one self-contained file (no network, no libraries) with the metrics tables,
// best speedup by step per task and averaged, each task's search tree (nodes coloured by verdict,
// sized by speedup, large and small steps told apart; a click shows the kernel, the error and the
// diff to the parent) and the LLM cost over time. The page is src/report/report.html, built into
// the binary; the data goes into it as JSON.

#include <string>
#include <vector>

#include "core/result.h"
#include "report/run_report.h"

namespace adaexplore {

// The page for `reports`, whose steps are read again from the database at `db_path` for the
// trees. `title` heads the page.
Result<std::string> HtmlReport(const std::string& db_path, const std::vector<RunReport>& reports,
                               const std::string& title);

// `json` made safe to embed in a <script> element (no "<" left to close it early).
std::string ScriptSafeJson(const std::string& json);

}  // namespace adaexplore
