#include "report/html_report.h"

#include <gtest/gtest.h>

#include <set>

#include "eval/verdict.h"
#include "sys/fs.h"

namespace adaexplore {
namespace {

int Count(const std::string& haystack, const std::string& needle) {
  int n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

TEST(HtmlReportTest, EmbedsTheDataWhereNoKernelCanBreakOutOfTheScript) {
  TempDir dir = *TempDir::Create("html-report");
  const std::string path = dir.path() + "/runs.sqlite";
  {
    RunDb db = *RunDb::Open(path);
    const int64_t run = *db.CreateRun({.method = "adaexplore", .model = "openai:m"});
    ASSERT_TRUE(db.AddTask(run, {.name = "t1", .source = "s", .steps = 2}).ok());
    StepRecord first{.node = 1,
                     .parent = 0,
                     .move = "large_step",
                     .kernel = "print('</script><script>alert(1)</script>')",
                     .verdict = "correct",
                     .compiled = true,
                     .correct = true,
                     .speedup = 2.0,
                     .result = {{"scope", "gpu"}, {"speedup_call", 0.8}}};
    first.calls.push_back(
        {.role = "proposer", .usage = {{"input", 100}, {"output", 20}}, .cost_usd = 0.5});
    ASSERT_TRUE(db.RecordStep(run, "t1", first).ok());
    StepRecord second{.node = 2,
                      .parent = 1,
                      .move = "small_step",
                      .kernel = "k2",
                      .verdict = "compile_error",
                      .result = {{"error", "SyntaxError: <bad>"}}};
    ASSERT_TRUE(db.RecordStep(run, "t1", second).ok());
  }
  Result<std::vector<RunReport>> reports = LoadRunReports(path, std::nullopt);
  ASSERT_TRUE(reports.ok());
  Result<std::string> page = HtmlReport(path, *reports, "Test report");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->find("/*ADAEXPLORE_DATA*/"), std::string::npos);
  // The page's own two script elements close; the kernel's "</script>" does not appear raw.
  EXPECT_EQ(Count(*page, "</script>"), 2);
  const size_t start = page->find("id=\"adaexplore-data\">") + 21;
  const size_t end = page->find("</script>", start);
  const nlohmann::json data = nlohmann::json::parse(page->substr(start, end - start));
  EXPECT_EQ(data["title"], "Test report");
  const nlohmann::json& nodes = data["trees"][0]["nodes"];
  ASSERT_EQ(nodes.size(), 3u);  // The root and two steps.
  EXPECT_EQ(nodes[1]["kernel"], "print('</script><script>alert(1)</script>')");
  EXPECT_EQ(nodes[2]["error"], "SyntaxError: <bad>");
  EXPECT_EQ(nodes[2]["parent"], 1);
  EXPECT_TRUE(nodes[2]["speedup"].is_null());
  EXPECT_EQ(nodes[1]["scope"], "gpu");  // Which time the speedup compares, and the call's.
  EXPECT_DOUBLE_EQ(nodes[1]["speedup_call"].get<double>(), 0.8);
  EXPECT_TRUE(nodes[2]["speedup_call"].is_null());
  EXPECT_DOUBLE_EQ(nodes[1]["cost"].get<double>(), 0.5);
  EXPECT_EQ(data["cost"][0]["unit"],
            "usd");  // Every call priced (a node without calls is neutral).
  EXPECT_EQ(data["report"]["runs"][0]["metrics"]["acc"], 1.0);
  // Every outcome a step can have has its colour, distinct from the others'.
  std::set<std::string> names, colours;
  for (const nlohmann::json& entry : data["colours"]) {
    names.insert(entry["verdict"].get<std::string>());
    colours.insert(entry["colour"].get<std::string>());
  }
  EXPECT_EQ(names.size(), AllVerdicts().size() + 1);
  EXPECT_TRUE(names.contains("no_kernel") && names.contains("correct"));
  EXPECT_EQ(colours.size(), names.size());
}

TEST(HtmlReportTest, ScriptSafeJsonKeepsTheValue) {
  const nlohmann::json value = {{"a", "</script><!-- x"}};
  const std::string safe = ScriptSafeJson(value.dump());
  EXPECT_EQ(safe.find('<'), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(safe), value);
}

}  // namespace
}  // namespace adaexplore
