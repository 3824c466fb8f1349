#include "report/run_report.h"

#include <gtest/gtest.h>

#include "core/hash.h"
#include "sys/fs.h"

namespace adaexplore {
namespace {

StepRecord Step(int node, const std::string& verdict, std::optional<double> speedup = {},
                nlohmann::json result = nlohmann::json::object()) {
  StepRecord s{.node = node,
               .parent = 0,
               .move = "large_step",
               .kernel = "k",
               .verdict = verdict,
               .compiled = verdict != "compile_error",
               .correct = verdict == "correct",
               .speedup = speedup,
               .result = std::move(result)};
  return s;
}

class RunReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<RunDb> db = RunDb::Open(path_);
    ASSERT_TRUE(db.ok());
    // Run 1 (adaexplore): t1 correct 1.5x then 3x; t2 never correct. Run 2 (ps): t1 at 0.9x.
    int64_t a = *db->CreateRun({.method = "adaexplore", .model = "openai:m"});
    int64_t b = *db->CreateRun({.method = "ps",
                                .model = "openai:m",
                                .options = {{"environment",
                                             {{"device", "x86_64"},
                                              {"device_kind", "cpu"},
                                              {"torch", "2.11.0"},
                                              {"triton", "3.6.0"},
                                              {"python", "3.12.3"},
                                              {"profile", "strict"}}}}});
    for (int64_t run : {a, b}) {
      ASSERT_TRUE(db->AddTask(run, {.name = "t1", .source = "s1", .steps = 3}).ok());
    }
    ASSERT_TRUE(db->AddTask(a, {.name = "t2", .source = "s2", .steps = 3}).ok());
    ASSERT_TRUE(db->RecordStep(a, "t1",
                               Step(1, "correct", 1.5, {{"wall_s", 1800.0}, {"sol_fraction", 0.2}}))
                    .ok());
    ASSERT_TRUE(db->RecordStep(a, "t1", Step(2, "compile_error")).ok());
    ASSERT_TRUE(
        db->RecordStep(a, "t1",
                       Step(3, "correct", 3.0, {{"degenerate", {"zeros"}}, {"sol_fraction", 0.4}}))
            .ok());
    ASSERT_TRUE(db->RecordStep(a, "t2", Step(1, "incorrect")).ok());
    ASSERT_TRUE(db->RecordStep(b, "t1", Step(1, "correct", 0.9)).ok());
  }
  TempDir dir_ = *TempDir::Create("run-report");
  std::string path_ = dir_.path() + "/runs.sqlite";
};

TEST_F(RunReportTest, MetricsPerRunAndPerMethod) {
  Result<std::vector<RunReport>> reports = LoadRunReports(path_, std::nullopt);
  ASSERT_TRUE(reports.ok()) << reports.status().ToString();
  ASSERT_EQ(reports->size(), 2u);
  const RunReport& a = (*reports)[0];
  EXPECT_EQ(a.metrics.tasks, 2);
  EXPECT_DOUBLE_EQ(a.metrics.acc, 0.5);
  EXPECT_DOUBLE_EQ(a.metrics.speedup, 1.5);  // (3 + 0) / 2.
  EXPECT_DOUBLE_EQ(a.metrics.fast_2, 0.5);
  EXPECT_DOUBLE_EQ(a.metrics.compile_rate, 3.0 / 4);
  EXPECT_EQ(a.metrics.degenerate_tasks, 1);
  EXPECT_DOUBLE_EQ(a.eval_hours, 0.5);
  EXPECT_EQ(a.tasks[0].best_by_step, (std::vector<double>{1.5, 1.5, 3.0}));
  // The speed-of-light fraction of the best kernel (3x), over the one task that has one.
  EXPECT_EQ(a.tasks[0].sol_fraction, 0.4);
  EXPECT_EQ(a.metrics.sol, 0.4);
  EXPECT_EQ(a.metrics.sol_tasks, 1);
  EXPECT_FALSE((*reports)[1].metrics.sol.has_value());

  const nlohmann::json json = ReportJson(*reports);
  const nlohmann::json& m = json["runs"][0]["metrics"];
  for (const char* name : {"acc", "speedup", "fast_1.2", "fast_2", "geomean"}) {
    EXPECT_TRUE(m.contains(name)) << name;
  }
  EXPECT_DOUBLE_EQ(m["geomean"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(m["sol"].get<double>(), 0.4);
  EXPECT_TRUE(json["runs"][1]["metrics"]["sol"].is_null());
  EXPECT_DOUBLE_EQ(json["runs"][1]["metrics"]["fast_p"]["0.8"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(json["runs"][1]["metrics"]["fast_p"]["1"].get<double>(), 0.0);
  ASSERT_EQ(json["methods"].size(), 2u);
  EXPECT_EQ(json["methods"][1]["method"], "ps");

  const std::string markdown = ReportMarkdown(*reports);
  EXPECT_NE(markdown.find("| adaexplore | 2 | 50% | 1.50 | 50% | 50% | 3.00 | 75% | 50% | 40% |"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("degenerate: trivial outputs pass its checks"), std::string::npos);
  // Neither run finished its steps: the report says so beside each run.
  EXPECT_NE(markdown.find("**not finished: its figures cover the steps it took (run --resume "
                          "continues it) (running).**"),
            std::string::npos)
      << markdown;
  const std::string csv = ReportCsv(*reports);
  const std::string unknown =
      R"(,"device not recorded (a run from an earlier version), profile strict",0,call)";
  EXPECT_NE(csv.find("1,adaexplore,openai:m,t1,1,3,3,2,2,1,1800.000,,," + unknown + "\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("1,adaexplore,openai:m,t2,0,,1,1,0,0,0.000,,," + unknown + "\n"),
            std::string::npos)
      << csv;
  // Every report says where each run's kernels were judged, and flags a CPU run.
  EXPECT_NE(csv.find(R"("x86_64, torch 2.11.0, triton 3.6.0, Python 3.12.3, profile strict",1)"),
            std::string::npos)
      << csv;
  EXPECT_NE(markdown.find("Run 2: x86_64, torch 2.11.0, triton 3.6.0, Python 3.12.3, profile "
                          "strict. **CPU run: kernels ran in Triton's interpreter"),
            std::string::npos)
      << markdown;
  EXPECT_EQ(json["runs"][1]["cpu_run"], true);
  EXPECT_EQ(json["runs"][0]["cpu_run"], false);
  EXPECT_EQ(markdown.find("Against torch.compile"), std::string::npos);  // No baselines.
}

TEST_F(RunReportTest, BaselinesJoinByTaskSourceAndProfile) {
  {
    Result<RunDb> db = RunDb::Open(path_);
    ASSERT_TRUE(db.ok());
    // t1's source under the strict profile: torch.compile twice as fast as eager.
    ASSERT_TRUE(db->RecordBaseline({{"key", "k1"},
                                    {"task", "t1"},
                                    {"task_sha256", Sha256Hex("s1")},
                                    {"profile", "strict"},
                                    {"eager_ms", 2.0},
                                    {"compiled_ms", 1.0}})
                    .ok());
    // Another source of t2 (an edited task) and another profile: neither applies.
    ASSERT_TRUE(db->RecordBaseline({{"key", "k2"},
                                    {"task", "t2"},
                                    {"task_sha256", Sha256Hex("old")},
                                    {"profile", "strict"},
                                    {"eager_ms", 9.0}})
                    .ok());
    ASSERT_TRUE(db->RecordBaseline({{"key", "k3"},
                                    {"task", "t2"},
                                    {"task_sha256", Sha256Hex("s2")},
                                    {"profile", "paper"},
                                    {"eager_ms", 9.0}})
                    .ok());
  }
  Result<std::vector<RunReport>> reports = LoadRunReports(path_, std::nullopt);
  ASSERT_TRUE(reports.ok());
  const RunReport& a = (*reports)[0];
  EXPECT_EQ(a.tasks[0].eager_ms, 2.0);
  EXPECT_EQ(a.tasks[0].compiled_ms, 1.0);
  EXPECT_EQ(a.tasks[0].vs_compile(), 1.5);  // 3x over eager, torch.compile 2x.
  EXPECT_FALSE(a.tasks[1].eager_ms.has_value());
  EXPECT_EQ(a.metrics.compile_tasks, 1);
  EXPECT_DOUBLE_EQ(a.metrics.beats_compile, 1.0);
  const RunReport& b = (*reports)[1];
  EXPECT_DOUBLE_EQ(b.metrics.beats_compile, 0.0);  // 0.9x over eager: 0.45x over compile.

  const nlohmann::json json = ReportJson(*reports);
  EXPECT_DOUBLE_EQ(json["runs"][0]["tasks"][0]["vs_compile"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(json["runs"][0]["metrics"]["vs_compile"]["geomean"].get<double>(), 1.5);
  const std::string markdown = ReportMarkdown(*reports);
  EXPECT_NE(markdown.find("| adaexplore | 1 | 100% | 1.50 |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| t1 | 3x | 3 | 2 | 2 | 2 | 1 | 1.5x |"), std::string::npos) << markdown;
  EXPECT_NE(ReportCsv(*reports).find("1,adaexplore,openai:m,t1,1,3,3,2,2,1,1800.000,2,1,1.5,"),
            std::string::npos);
}

TEST_F(RunReportTest, ASpeedupInKernelTimeSaysSo) {
  {
    Result<RunDb> db = RunDb::Open(path_);
    ASSERT_TRUE(db.ok());
    // A TritonBench-G operator: its speedup compares the operator's kernel time.
    int64_t run = *db->CreateRun({.method = "adaexplore", .model = "openai:m"});
    ASSERT_TRUE(db->AddTask(run, {.name = "add_value", .source = "s3", .steps = 1}).ok());
    ASSERT_TRUE(
        db->RecordStep(run, "add_value", Step(1, "correct", 2.0, {{"scope", "kernel"}})).ok());
    ASSERT_TRUE(db->RecordBaseline({{"key", "k4"},
                                    {"task", "add_value"},
                                    {"task_sha256", Sha256Hex("s3")},
                                    {"profile", "strict"},
                                    {"eager_ms", 2.0},
                                    {"compiled_ms", 1.0}})
                    .ok());
  }
  Result<std::vector<RunReport>> reports = LoadRunReports(path_, 3);
  ASSERT_TRUE(reports.ok());
  const TaskOutcome& t = reports->front().tasks.front();
  EXPECT_EQ(t.scope, "kernel");
  EXPECT_FALSE(t.vs_compile());  // The baseline's call times do not carry over to kernel time.
  EXPECT_EQ(ReportJson(*reports)["runs"][0]["tasks"][0]["scope"], "kernel");
  const std::string markdown = ReportMarkdown(*reports);
  EXPECT_NE(markdown.find("| add_value | 2x in kernel time | 1 |"), std::string::npos) << markdown;
  EXPECT_TRUE(ReportCsv(*reports).ends_with(",kernel\n"));
  // The runs before it compare calls.
  EXPECT_EQ((*LoadRunReports(path_, 1)).front().tasks.front().scope, "call");
}

TEST_F(RunReportTest, AKernelCorrectAtTheTasksSizesOnlyIsCountedApart) {
  const nlohmann::json baked = {
      {"verdict", "correct"},
      {"size_checks",
       {{{"set", "uneven"}, {"sizes", {{"dim", 1001}}}, {"outcome", "wrong"}, {"detail", "x"}}}}};
  {
    Result<RunDb> db = RunDb::Open(path_);
    ASSERT_TRUE(db.ok());
    for (bool allowed : {false, true}) {
      int64_t run = *db->CreateRun({.method = "adaexplore",
                                    .model = "openai:m",
                                    .options = {{"size_specific_best", allowed}}});
      ASSERT_TRUE(db->AddTask(run, {.name = "relu", .source = "s4", .steps = 2}).ok());
      ASSERT_TRUE(db->RecordStep(run, "relu", Step(1, "correct", 1.2)).ok());
      ASSERT_TRUE(db->RecordStep(run, "relu", Step(2, "correct", 4.0, baked)).ok());
    }
  }
  const TaskOutcome strict = (*LoadRunReports(path_, 3)).front().tasks.front();
  EXPECT_EQ(strict.speedup, 1.2);
  EXPECT_EQ(strict.correct_steps, 2);
  EXPECT_EQ(strict.sizes_only_steps, 1);
  const std::string markdown = ReportMarkdown(*LoadRunReports(path_, 3));
  EXPECT_NE(markdown.find("1 kernel correct at the task's sizes only (up to 4x), not counted"),
            std::string::npos)
      << markdown;
  const TaskOutcome allowed = (*LoadRunReports(path_, 4)).front().tasks.front();
  EXPECT_EQ(allowed.speedup, 4.0);
  EXPECT_EQ(allowed.sizes_only_steps, 0);
}

TEST_F(RunReportTest, OneRunAndMissingThings) {
  Result<std::vector<RunReport>> one = LoadRunReports(path_, 2);
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ(one->front().run.method, "ps");
  EXPECT_FALSE(LoadRunReports(path_, 7).ok());
  EXPECT_FALSE(LoadRunReports(dir_.path() + "/none.sqlite", std::nullopt).ok());
}

TEST(RunReportFiguresTest, TinySpeedupsKeepThreeSignificantDigits) {
  TempDir dir = *TempDir::Create("run-report-tiny");
  const std::string path = dir.path() + "/tiny.sqlite";
  {
    Result<RunDb> db = RunDb::Open(path);
    ASSERT_TRUE(db.ok());
    const int64_t run = *db->CreateRun({.method = "ps", .model = "openai:m"});
    ASSERT_TRUE(db->AddTask(run, {.name = "t", .source = "s", .steps = 1}).ok());
    ASSERT_TRUE(db->RecordStep(run, "t", Step(1, "correct", 0.003876)).ok());
    const int64_t fast = *db->CreateRun({.method = "irb", .model = "openai:m"});
    ASSERT_TRUE(db->AddTask(fast, {.name = "t", .source = "s", .steps = 1}).ok());
    ASSERT_TRUE(db->RecordStep(fast, "t", Step(1, "correct", 1234.4)).ok());
  }
  Result<std::vector<RunReport>> reports = LoadRunReports(path, std::nullopt);
  ASSERT_TRUE(reports.ok());
  const std::string markdown = ReportMarkdown(*reports);
  // A CPU run's speedup reads 0.00388, never 0.00.
  EXPECT_NE(markdown.find("| ps | 1 | 100% | 0.00388 | 0% | 0% | 0.00388 |"), std::string::npos)
      << markdown;
  // Capped at 10 for Speedup; the uncapped geomean a whole number, not "1.23e+03".
  EXPECT_NE(markdown.find("| irb | 1 | 100% | 10.0 | 100% | 100% | 1234 |"), std::string::npos)
      << markdown;
}

}  // namespace
}  // namespace adaexplore
