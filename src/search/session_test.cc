#include "search/session.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "core/text.h"
#include "eval_facts.h"
#include "scripted_runner.h"
#include "search/step_result.h"
#include "sys/fs.h"

namespace adaexplore {
namespace {

const std::string kSource = ADAEXPLORE_SOURCE_DIR;
const std::string kRecording = kSource + "/examples/recordings/relu.jsonl";

// A session over a run database in a temporary folder, its evaluator answered by a scripted
// runner (every kernel correct, 3x), and an LLM client that replays the example recording.
class SearchSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<Evaluator>> evaluator =
        Evaluator::Start(EvaluatorOptions{.profile = StrictProfile()}, nullptr,
                         std::make_unique<test_runner::ScriptedRunner>(
                             std::vector<WorkerHello>{test_runner::Hello("NVIDIA H200", "2.11")},
                             std::nullopt, &jobs_, test_facts::CorrectFacts()));
    ASSERT_TRUE(evaluator.ok()) << evaluator.status().ToString();
    Result<RunDb> db = RunDb::Open(dir_.path() + "/runs.sqlite");
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    Result<TempDir> scratch = TempDir::Create("session-scratch");
    ASSERT_TRUE(scratch.ok());
    session_ =
        std::make_unique<SearchSession>(SessionOptions{.profile = StrictProfile(),
                                                       .prompts_dir = kSource + "/prompts",
                                                       .db_path = dir_.path() + "/runs.sqlite"},
                                        std::move(*db), std::move(*evaluator), std::move(*scratch));
    Result<SourceFile> task = ReadSourceFile(kSource + "/examples/tasks/relu.py");
    ASSERT_TRUE(task.ok());
    task_ = *task;
  }

  std::unique_ptr<LlmClient> Client() {
    LlmOptions options;
    options.cache_enabled = false;
    Result<std::unique_ptr<LlmClient>> llm = LlmClient::Create(options);
    EXPECT_TRUE(llm.ok()) << llm.status().ToString();
    return std::move(*llm);
  }

  static RunSpec Spec(int steps) {
    RunSpec spec{.method = SearchMethod::kParallelSampling,
                 .model = "replay:" + kRecording,
                 .steps = steps,
                 .seed = 7,
                 .memory_rules = {"Mask every load."}};
    spec.search.explore.expand_ratio = 0.5;
    return spec;
  }

  TempDir dir_ = *TempDir::Create("session-test");
  int jobs_ = 0;
  std::unique_ptr<SearchSession> session_;
  SourceFile task_;
};

TEST_F(SearchSessionTest, RunsSeveralRunsOverTheSameWorkers) {
  std::unique_ptr<LlmClient> llm = Client();
  int64_t started_run = 0;
  int steps_seen = 0;
  RunObserver observer{.on_start = [&](int64_t id, const RunSpec&, size_t) { started_run = id; },
                       .on_progress = [&](const TaskProgress&) { ++steps_seen; }};
  Result<RunOutcome> first = session_->Start(Spec(2), {task_}, *llm, observer);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(started_run, first->run_id);
  EXPECT_FALSE(first->stopped);
  ASSERT_EQ(first->tasks.size(), 1u);
  EXPECT_EQ(first->tasks[0].steps, 2);
  EXPECT_EQ(first->tasks[0].best_verdict, "correct");
  EXPECT_EQ(steps_seen, 2);
  const int jobs_after_first = jobs_;
  EXPECT_GE(jobs_after_first, 1);  // Equal kernels are evaluated once.

  // A second run in the same session, on the same evaluator, with the same client.
  Result<RunOutcome> second = session_->Start(Spec(1), {task_}, *llm, observer);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_NE(second->run_id, first->run_id);
  EXPECT_EQ(second->tasks[0].steps, 1);
  Result<std::optional<RunInfo>> stored = session_->db().FindRun(first->run_id);
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->status, WorkStatus::kFinished);

  Result<nlohmann::json> summary = RunSummaryJson(*second, session_->db(), *llm, "runs.sqlite");
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ((*summary)["method"], "ps");
  EXPECT_EQ((*summary)["llm_replayed"], true);
  EXPECT_EQ((*summary)["status"], "finished");
  EXPECT_EQ((*summary)["tasks"][0]["steps"], 1);
  // The client's ledger holds both runs; the run's own cost only the second's calls.
  EXPECT_GT((*summary)["cost"]["calls"], (*summary)["run_cost"]["calls"]);

  ASSERT_TRUE(WriteRunOutput(*second, *summary, dir_.path() + "/out").ok());
  EXPECT_TRUE(ReadFile(dir_.path() + "/out/relu.py").ok());
  Result<std::string> written = ReadFile(dir_.path() + "/out/summary.json");
  ASSERT_TRUE(written.ok());
  EXPECT_EQ(nlohmann::json::parse(*written)["run"], second->run_id);
}

TEST_F(SearchSessionTest, ResumeSearchesWithTheStoredSpec) {
  // A run stored but never searched (as one killed before its first step): resuming it takes its
  // steps, method and seed from the database, not from anything the caller passes.
  const RunSpec spec = Spec(3);
  Result<int64_t> id = session_->db().CreateRun(NewRunInfo(spec, StrictProfile()));
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(
      session_->db().AddTask(*id, {.name = task_.name, .source = task_.source, .steps = 3}).ok());
  std::unique_ptr<LlmClient> llm = Client();
  Result<RunOutcome> resumed = session_->Resume(*id, *llm, {});
  ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
  EXPECT_EQ(resumed->run_id, *id);
  EXPECT_EQ(resumed->spec.method, SearchMethod::kParallelSampling);
  EXPECT_EQ(resumed->spec.seed, 7u);
  EXPECT_EQ(resumed->spec.memory_rules, spec.memory_rules);
  ASSERT_EQ(resumed->tasks.size(), 1u);
  EXPECT_EQ(resumed->tasks[0].steps, 3);
  EXPECT_FALSE(resumed->stopped);

  // Resuming the finished run again adds no step.
  const int jobs_before = jobs_;
  Result<RunOutcome> again = session_->Resume(*id, *llm, {});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->tasks[0].steps, 3);
  EXPECT_EQ(jobs_, jobs_before);

  Result<RunOutcome> missing = session_->Resume(*id + 100, *llm, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

// The plan each of a run's nodes recorded (result "plan"), in node order.
std::vector<nlohmann::json> Plans(RunDb& db, int64_t run) {
  Result<std::vector<StepRecord>> steps = db.Steps(run, "relu");
  EXPECT_TRUE(steps.ok()) << steps.status().ToString();
  std::vector<nlohmann::json> plans;
  for (const StepRecord& step : steps.ok() ? *steps : std::vector<StepRecord>{}) {
    plans.push_back(step.result.value("plan", nlohmann::json::object()));
  }
  return plans;
}

TEST_F(SearchSessionTest, StepsInFlightAreNumberedOnceAndRecordWhatTheyWerePlannedWith) {
  RunSpec spec = Spec(5);
  spec.in_flight = 3;
  std::unique_ptr<LlmClient> llm = Client();
  Result<RunOutcome> run = session_->Start(spec, {task_}, *llm, {});
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->tasks[0].steps, 5);
  std::set<int> numbers;
  int with_others = 0;
  for (const nlohmann::json& plan : Plans(session_->db(), run->run_id)) {
    numbers.insert(plan.at("step").get<int>());
    with_others += plan.at("in_flight").empty() ? 0 : 1;
    for (const nlohmann::json& other : plan.at("in_flight")) {
      EXPECT_NE(other.at("step"), plan.at("step"));
      EXPECT_EQ(other.at("move"), "large_step");  // Parallel sampling: all from the root.
    }
  }
  EXPECT_EQ(numbers, (std::set<int>{1, 2, 3, 4, 5}));
  EXPECT_GE(with_others, 2);  // The first three start together.
}

TEST_F(SearchSessionTest, AResumePlansTheStepsInFlightAtAKillUnderTheirOwnNumbers) {
  // Killed with steps 1 to 3 in flight after 1 and 3 were recorded: 2 and 4 are left.
  RunSpec spec = Spec(4);
  spec.in_flight = 3;
  Result<int64_t> id = session_->db().CreateRun(NewRunInfo(spec, StrictProfile()));
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(
      session_->db().AddTask(*id, {.name = task_.name, .source = task_.source, .steps = 4}).ok());
  for (int number : {1, 3}) {
    const nlohmann::json result = {{"verdict", "no_kernel"},
                                   {"reason", "none"},
                                   {"plan", {{"step", number}, {"seen", 0}, {"in_flight", {}}}}};
    ASSERT_TRUE(session_->db()
                    .RecordStep(*id, task_.name,
                                {.node = number == 1 ? 1 : 2,
                                 .move = "large_step",
                                 .verdict = "no_kernel",
                                 .reason = "none",
                                 .result = result})
                    .ok());
  }
  std::unique_ptr<LlmClient> llm = Client();
  Result<RunOutcome> resumed = session_->Resume(*id, *llm, {});
  ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
  EXPECT_EQ(resumed->tasks[0].steps, 4);
  std::vector<int> numbers;
  for (const nlohmann::json& plan : Plans(session_->db(), *id)) {
    numbers.push_back(plan.at("step").get<int>());
  }
  ASSERT_EQ(numbers.size(), 4u);
  EXPECT_EQ((std::vector<int>{numbers[0], numbers[1]}), (std::vector<int>{1, 3}));
  EXPECT_EQ((std::set<int>{numbers[2], numbers[3]}), (std::set<int>{2, 4}));
}

// A GPU worker with known ceilings (4e12 bytes/s), answering with `facts` (CorrectFacts of
// 0.5 ms against 1.5 ms by default) that carry 2e9 bytes of inputs and outputs: a speed of light
// of 0.5 ms.
WorkerHello GpuWithCeilings() {
  WorkerHello gpu = test_runner::Hello("NVIDIA H200", "2.11");
  gpu.ceilings = {.copy_bytes_per_s = 4e12, .bf16_flops_per_s = 9e14};
  return gpu;
}

nlohmann::json FactsWithBytes(double candidate_ms, double reference_ms) {
  nlohmann::json facts = test_facts::CorrectFacts(candidate_ms, reference_ms);
  facts["roofline"] = {{"io_bytes", 2e9}, {"bytes", 2e9}, {"flops", 0}};
  return facts;
}

// A session over `runner`, its database in `dir`.
std::unique_ptr<SearchSession> SessionOver(std::unique_ptr<JobRunner> runner, const TempDir& dir) {
  Result<std::unique_ptr<Evaluator>> evaluator =
      Evaluator::Start(EvaluatorOptions{.profile = StrictProfile()}, nullptr, std::move(runner));
  Result<RunDb> db = RunDb::Open(dir.path() + "/runs.sqlite");
  if (!evaluator.ok() || !db.ok()) {
    ADD_FAILURE() << "no session: " << evaluator.status().ToString() << db.status().ToString();
    return nullptr;
  }
  return std::make_unique<SearchSession>(SessionOptions{.profile = StrictProfile(),
                                                        .prompts_dir = kSource + "/prompts",
                                                        .db_path = dir.path() + "/runs.sqlite"},
                                         std::move(*db), std::move(*evaluator),
                                         *TempDir::Create("session-scratch"));
}

TEST(SearchSessionRooflineTest, TheProposerIsToldTheSpeedOfLightOnceAGpuMeasuredIt) {
  // A GPU worker with known ceilings, whose results carry the task's bytes: from the second
  // step on, the proposer's prompt states the task's speed of light.
  int jobs = 0;
  const TempDir dir = *TempDir::Create("roofline-test");
  std::unique_ptr<SearchSession> session = SessionOver(
      std::make_unique<test_runner::ScriptedRunner>(std::vector<WorkerHello>{GpuWithCeilings()},
                                                    std::nullopt, &jobs, FactsWithBytes(0.5, 1.5)),
      dir);
  ASSERT_NE(session, nullptr);
  Result<SourceFile> task = ReadSourceFile(kSource + "/examples/tasks/relu.py");
  ASSERT_TRUE(task.ok());
  LlmOptions options;
  options.cache_enabled = false;
  std::unique_ptr<LlmClient> llm = *LlmClient::Create(options);
  const RunSpec spec{
      .method = SearchMethod::kParallelSampling, .model = "replay:" + kRecording, .steps = 2};
  Result<RunOutcome> run = session->Start(spec, {*task}, *llm, {});
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  Result<std::vector<StepRecord>> steps = session->db().Steps(run->run_id, "relu");
  ASSERT_TRUE(steps.ok() && steps->size() == 2u);
  const auto proposer = [&](size_t i) {
    return (*steps)[i].calls.at(0).messages.at(1).at("content").get<std::string>();
  };
  EXPECT_EQ(proposer(0).find("## The speed of light"), std::string::npos);  // Nothing measured.
  // 2e9 bytes at 4e12 bytes/s: 0.5 ms; the reference's 1.5 ms is 3x that.
  EXPECT_NE(proposer(1).find("No kernel can run this task in less than about 0.5 ms on this GPU: "
                             "its inputs and outputs are 2000 MB"),
            std::string::npos)
      << proposer(1);
  EXPECT_NE(proposer(1).find("The reference takes 1.5 ms (3x that bound)."), std::string::npos);
}

TEST(SearchSessionRooflineTest, ATaskAtTheSpeedOfLightStopsAndItsStepsGoToTheOther) {
  // relu's kernels run at the speed of light (2e9 bytes at 4e12 bytes/s: 0.5 ms, and they take
  // 0.5 ms), softmax's at a tenth of it (5 ms): with --stop-at-sol 0.9 relu stops after its first
  // step and softmax takes the two it leaves: 6 steps in all, as without the budget rule.
  int jobs = 0;
  auto runner = std::make_unique<test_runner::ScriptedRunner>(
      std::vector<WorkerHello>{GpuWithCeilings()}, std::nullopt, &jobs, FactsWithBytes(0.5, 1.5));
  runner->SetTaskFacts("softmax.py", FactsWithBytes(5.0, 6.0));
  const TempDir dir = *TempDir::Create("sol-budget-test");
  std::unique_ptr<SearchSession> session = SessionOver(std::move(runner), dir);
  ASSERT_NE(session, nullptr);
  std::vector<SourceFile> tasks;
  for (const char* name : {"relu", "softmax"}) {
    Result<SourceFile> task = ReadSourceFile(kSource + "/examples/tasks/" + name + ".py");
    ASSERT_TRUE(task.ok());
    tasks.push_back(*task);
  }
  // The recording's relu replies, recorded for softmax too (the replay matches by task name).
  Result<std::string> recorded = ReadFile(kRecording);
  ASSERT_TRUE(recorded.ok());
  std::string both = *recorded;
  for (std::string_view line : SplitLines(*recorded)) {
    if (line.empty()) {
      continue;
    }
    nlohmann::json call = nlohmann::json::parse(line);
    call["task"] = "softmax";
    both += call.dump() + "\n";
  }
  ASSERT_TRUE(WriteFileAtomic(dir.path() + "/both.jsonl", both).ok());
  LlmOptions options;
  options.cache_enabled = false;
  std::unique_ptr<LlmClient> llm = *LlmClient::Create(options);
  RunSpec spec{.method = SearchMethod::kParallelSampling,
               .model = "replay:" + dir.path() + "/both.jsonl",
               .steps = 3,
               .stop_at_sol = 0.9};
  Result<RunOutcome> run = session->Start(spec, tasks, *llm, {});
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ASSERT_EQ(run->tasks.size(), 2u);
  EXPECT_EQ(run->tasks[0].steps, 1);  // At the speed of light after its first kernel.
  EXPECT_EQ(run->tasks[0].status, WorkStatus::kFinished);
  EXPECT_EQ(run->tasks[1].steps, 5);  // Its own 3 and the 2 relu left.
  EXPECT_FALSE(run->stopped);
}

TEST_F(SearchSessionTest, RefusesARunWithoutTasksOrWithAnUnknownModel) {
  std::unique_ptr<LlmClient> llm = Client();
  Result<RunOutcome> none = session_->Start(Spec(1), {}, *llm, {});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kInvalidArgument);

  RunSpec missing_recording = Spec(1);
  missing_recording.model = "replay:" + dir_.path() + "/no-such-recording.jsonl";
  Result<RunOutcome> refused = session_->Start(missing_recording, {task_}, *llm, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(jobs_, 0);  // Nothing was evaluated for a run whose model cannot answer.
}

TEST_F(SearchSessionTest, AfterAnInterruptTheSessionStartsNoOtherRun) {
  InterruptGuard guard;
  Result<std::unique_ptr<Evaluator>> evaluator =
      Evaluator::Start(EvaluatorOptions{.profile = StrictProfile()}, &guard,
                       std::make_unique<test_runner::ScriptedRunner>(
                           std::vector<WorkerHello>{test_runner::Hello("NVIDIA H200", "2.11")},
                           std::nullopt, &jobs_, test_facts::CorrectFacts()));
  ASSERT_TRUE(evaluator.ok());
  Result<RunDb> db = RunDb::Open(dir_.path() + "/interrupted.sqlite");
  ASSERT_TRUE(db.ok());
  SearchSession session(SessionOptions{.profile = StrictProfile(),
                                       .prompts_dir = kSource + "/prompts",
                                       .db_path = "interrupted.sqlite",
                                       .guard = &guard},
                        std::move(*db), std::move(*evaluator), *TempDir::Create("session-scratch"));
  std::unique_ptr<LlmClient> llm = Client();
  InterruptGuard::TEST_Raise(SIGINT);
  Result<RunOutcome> stopped = session.Start(Spec(3), {task_}, *llm, {});
  ASSERT_TRUE(stopped.ok()) << stopped.status().ToString();
  EXPECT_TRUE(stopped->stopped);
  EXPECT_TRUE(stopped->stop_reason.has_value());
  Result<std::optional<RunInfo>> stored = session.db().FindRun(stopped->run_id);
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->status, WorkStatus::kStopped);  // `--resume` continues it.

  Result<RunOutcome> next = session.Start(Spec(1), {task_}, *llm, {});
  ASSERT_FALSE(next.ok());
  EXPECT_EQ(next.status().code(), StatusCode::kCancelled);
}

TEST(SearchSessionSanitizerTest, ANewBestTheSanitizerFindsErrorsInIsNeverTheTasksBest) {
  // Every kernel is correct at 3x, and compute-sanitizer's memcheck finds errors in each: each is
  // sanitized as it would be the new best, none is taken as the best, and the task's best says
  // why, with no speedup counted. The prompts tell the next steps.
  int jobs = 0;
  WorkerHello gpu = test_runner::Hello("NVIDIA H200", "2.11");
  gpu.compute_sanitizer = {{"path", "/usr/local/cuda/bin/compute-sanitizer"}, {"version", "x"}};
  auto runner = std::make_unique<test_runner::ScriptedRunner>(
      std::vector<WorkerHello>{gpu}, std::nullopt, &jobs, test_facts::CorrectFacts());
  std::vector<nlohmann::json> options;
  runner->RecordOptionsIn(&options);
  const nlohmann::json memcheck = {{"tool", "memcheck"},
                                   {"ended", "errors"},
                                   {"exit_code", 86},
                                   {"signal", nullptr},
                                   {"wall_s", 7.0},
                                   {"errors", 4},
                                   {"records", {"Invalid __global__ read of size 4 bytes"}},
                                   {"tail", ""}};
  nlohmann::json racecheck = memcheck;
  racecheck.update({{"tool", "racecheck"}, {"ended", "clean"}, {"errors", 0}});
  runner->SetSanitizerFacts({{"status", "ok"}, {"sanitizer", {memcheck, racecheck}}});
  const TempDir dir = *TempDir::Create("sanitizer-session-test");
  std::unique_ptr<SearchSession> session = SessionOver(std::move(runner), dir);
  ASSERT_NE(session, nullptr);
  Result<SourceFile> task = ReadSourceFile(kSource + "/examples/tasks/relu.py");
  ASSERT_TRUE(task.ok());
  LlmOptions llm_options;
  llm_options.cache_enabled = false;
  std::unique_ptr<LlmClient> llm = *LlmClient::Create(llm_options);
  const RunSpec spec{
      .method = SearchMethod::kParallelSampling, .model = "replay:" + kRecording, .steps = 2};
  ASSERT_TRUE(spec.sanitize_best);  // The default.
  Result<RunOutcome> run = session->Start(spec, {*task}, *llm, {});
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ASSERT_EQ(run->tasks.size(), 1u);
  EXPECT_EQ(run->tasks[0].best_verdict, kUnsafeBest);
  EXPECT_FALSE(run->tasks[0].best_speedup.has_value());
  int sanitized = 0;
  for (const nlohmann::json& o : options) {
    sanitized += !o.value("sanitize", nlohmann::json::array()).empty();
  }
  EXPECT_EQ(sanitized, 2);  // Each would have been the new best.
  Result<std::vector<StepRecord>> steps = session->db().Steps(run->run_id, "relu");
  ASSERT_TRUE(steps.ok() && steps->size() == 2u);
  const EvalResult first = EvalResultFromJson((*steps)[0].result);
  ASSERT_EQ(first.sanitizer.size(), 2u);
  EXPECT_EQ(first.sanitizer[0].errors, 4);
  EXPECT_EQ((*steps)[0].verdict, "correct");  // The verdict and speedup stand.
  EXPECT_TRUE((*steps)[0].speedup.has_value());
  EXPECT_EQ(RecordOf(1, "", first).sanitizer.rfind("compute-sanitizer memcheck found 4 errors", 0),
            0u);
}

TEST(RunSpecTest, StoredSpecReadsBackEqual) {
  RunSpec spec{.method = SearchMethod::kIterativeRefinement,
               .model = "openai:gpt-5-mini",
               .language = KernelLanguage::kCuda,
               .steps = 12,
               .seed = 99,
               .reviser = false,
               .confirm_best = true,
               .in_flight = 4,
               .max_tasks = 2,
               .reasoning_effort = "low",
               .max_output_tokens = 4096,
               .memory_rules = {"a", "b"},
               .label = "bench x",
               .base_url = "http://127.0.0.1:8000/v1"};
  spec.search.explore.p_large = 0.25;
  spec.search.rewards.objective = Objective::kSol;
  const RunInfo row = NewRunInfo(spec, StrictProfile());
  EXPECT_EQ(row.method, "ir");
  EXPECT_EQ(row.options["profile"], "strict");
  EXPECT_TRUE(row.options.contains("eval"));
  Result<RunSpec> back = RunSpecOf(row);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->method, spec.method);
  EXPECT_EQ(back->model, spec.model);
  EXPECT_EQ(back->language, spec.language);
  EXPECT_EQ(back->steps, spec.steps);
  EXPECT_EQ(back->seed, spec.seed);
  EXPECT_EQ(back->reviser, spec.reviser);
  EXPECT_EQ(SearchSettingsJson(back->search), SearchSettingsJson(spec.search));
  EXPECT_EQ(back->confirm_best, spec.confirm_best);
  EXPECT_EQ(back->in_flight, spec.in_flight);
  EXPECT_EQ(back->max_tasks, spec.max_tasks);
  EXPECT_EQ(back->search.rewards.objective, Objective::kSol);
  EXPECT_EQ(back->reasoning_effort, spec.reasoning_effort);
  EXPECT_EQ(back->max_output_tokens, spec.max_output_tokens);
  EXPECT_EQ(back->memory_rules, spec.memory_rules);
  EXPECT_EQ(back->label, spec.label);
  EXPECT_EQ(back->base_url, spec.base_url);
}

TEST(RunSpecTest, TheIdentityCoversWhatIsStoredButTheMethodStepsAndLabel) {
  const EvalProfile profile = *ProfileByName("strict");
  RunSpec spec{.model = "replay:x.jsonl"};
  const std::string identity = SpecIdentity(spec, profile);
  RunSpec same = spec;
  same.method = SearchMethod::kIterativeRefinement;
  same.steps = 7;
  same.label = "bench";
  same.base_url = "http://127.0.0.1:8000/v1";  // The same model served elsewhere.
  EXPECT_EQ(SpecIdentity(same, profile), identity);
  for (const auto& change : std::vector<std::function<void(RunSpec&)>>{
           [](RunSpec& s) { s.confirm_best = true; }, [](RunSpec& s) { s.in_flight = 4; },
           [](RunSpec& s) { s.search.rewards.objective = Objective::kSol; },
           [](RunSpec& s) { s.model = "replay:y.jsonl"; },
           [](RunSpec& s) { s.max_output_tokens = 100; },
           [](RunSpec& s) { s.memory_rules = {"a rule"}; },
           [](RunSpec& s) { s.search.explore.expand_ratio = 0.5; }}) {
    RunSpec other = spec;
    change(other);
    EXPECT_NE(SpecIdentity(other, profile), identity);
  }
  EXPECT_NE(SpecIdentity(spec, *ProfileByName("paper")), identity);
}

TEST(RunSpecTest, OlderRunsTakeTheDefaultsOfTheirTime) {
  // A run stored before the search constants were: only its expand ratio.
  RunInfo old{.id = 4,
              .method = "adaexplore",
              .model = "openai:m",
              .options = {
                  {"steps", 5},
                  {"expand_ratio", 0.5},
              }};
  Result<RunSpec> spec = RunSpecOf(old);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->steps, 5);
  EXPECT_DOUBLE_EQ(spec->search.explore.expand_ratio, 0.5);
  EXPECT_EQ(spec->language, KernelLanguage::kTriton);
  EXPECT_TRUE(spec->reviser);
  EXPECT_EQ(spec->in_flight, 1);      // One step at a time, as every run before it.
  EXPECT_FALSE(spec->sanitize_best);  // No compute-sanitizer on its new bests.
  EXPECT_EQ(spec->max_tasks, 0);
  EXPECT_TRUE(spec->memory_rules.empty());
}

TEST(RunSpecTest, AMalformedStoredValueNamesTheRunAndTheField) {
  RunInfo bad{.id = 9, .method = "adaexplore", .model = "openai:m", .options = {{"steps", "ten"}}};
  Result<RunSpec> spec = RunSpecOf(bad);
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.status().message().find("run 9"), std::string::npos);
  EXPECT_NE(spec.status().message().find("steps"), std::string::npos);

  RunInfo method{.id = 9, .method = "beam", .model = "openai:m"};
  EXPECT_FALSE(RunSpecOf(method).ok());
  RunInfo language{.id = 9, .method = "ps", .model = "openai:m", .options = {{"language", "hip"}}};
  EXPECT_FALSE(RunSpecOf(language).ok());
  RunInfo search{
      .id = 9, .method = "ps", .model = "openai:m", .options = {{"search", {{"alpha", "x"}}}}};
  EXPECT_FALSE(RunSpecOf(search).ok());
}

}  // namespace
}  // namespace adaexplore
