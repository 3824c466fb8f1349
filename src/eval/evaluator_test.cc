#include "eval/evaluator.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "eval/sanitizer.h"
#include "eval/size_checks.h"
#include "eval_facts.h"
#include "scripted_runner.h"
#include "sys/fs.h"

namespace adaexplore {
namespace {

using nlohmann::json;

using test_runner::Hello;
using test_runner::ScriptedRunner;

class EvaluatorTest : public ::testing::Test {
 protected:
  // A fresh evaluator on the shared cache whose runner heard `ready` and measures as `measured`.
  std::unique_ptr<Evaluator> Make(std::vector<WorkerHello> ready,
                                  const std::optional<WorkerHello>& measured) {
    EvaluatorOptions options;
    options.profile = profile_;
    options.cache_path = dir_.path() + "/cache.sqlite";
    options.refresh_cache = refresh_;
    auto runner = std::make_unique<ScriptedRunner>(std::move(ready), measured, &jobs_, facts_);
    runner->RecordOptionsIn(&options_);
    if (sizes_facts_) {
      runner->SetSizesFacts(*sizes_facts_);
    }
    if (size_sets_facts_) {
      runner->SetSizeSetsFacts(*size_sets_facts_);
    }
    if (sanitizer_facts_) {
      runner->SetSanitizerFacts(*sanitizer_facts_);
    }
    for (const auto& [uuid, facts] : workload_facts_) {
      runner->SetWorkloadFacts(uuid, facts);
    }
    Result<std::unique_ptr<Evaluator>> evaluator =
        Evaluator::Start(options, nullptr, std::move(runner));
    EXPECT_TRUE(evaluator.ok()) << evaluator.status().ToString();
    return std::move(*evaluator);
  }
  // One evaluation of the same task and candidate.
  EvalResult EvaluateOnce(std::vector<WorkerHello> ready,
                          const std::optional<WorkerHello>& measured) {
    std::unique_ptr<Evaluator> evaluator = Make(std::move(ready), measured);
    Result<std::vector<EvalResult>> results = evaluator->Run({Request()}, nullptr, nullptr);
    EXPECT_TRUE(results.ok());
    expected_key_ = evaluator->CacheKey(Request());
    return results->at(0);
  }
  Baseline BaselineOnce(std::vector<WorkerHello> ready,
                        const std::optional<WorkerHello>& measured) {
    Result<std::vector<Baseline>> b =
        Make(std::move(ready), measured)
            ->Baselines({Request().task}, false, CacheUse::kRead, nullptr);
    EXPECT_TRUE(b.ok());
    return b->at(0);
  }
  static EvalRequest Request() {
    return {.task = {.path = "t.py", .name = "t", .source = "task", .sha256 = "aa11"},
            .candidate = {.path = "k.py", .name = "k", .source = "kernel", .sha256 = "bb22"}};
  }

  TempDir dir_ = *TempDir::Create("evaluator-test");
  EvalProfile profile_ = StrictProfile();
  json facts_ = test_facts::CorrectFacts();  // What every evaluation job reports.
  std::optional<json> sizes_facts_;          // What a check at another size set reports.
  std::optional<json> size_sets_facts_;  // What a job that checks the other sizes itself reports.
  std::optional<json> sanitizer_facts_;  // What a compute-sanitizer job reports.
  std::map<std::string, json> workload_facts_;  // What a job on a workload reports, by uuid.
  bool refresh_ = false;                        // --refresh: evaluate again, overwriting the cache.
  int jobs_ = 0;
  std::vector<json> options_;  // Every job's options, as submitted.
  std::string expected_key_;
};

TEST_F(EvaluatorTest, ResultOfTheFirstWorkersSoftwareIsServedFromTheCacheNextTime) {
  const WorkerHello h200 = Hello("NVIDIA H200", "2.11");
  EvalResult first = EvaluateOnce({h200}, h200);
  EXPECT_EQ(first.verdict, Verdict::kCorrect);
  EXPECT_EQ(first.device, "NVIDIA H200");
  EXPECT_EQ(first.cache_key, expected_key_);
  EXPECT_FALSE(first.cached);
  EvalResult again = EvaluateOnce({h200}, h200);
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(jobs_, 1);
}

TEST_F(EvaluatorTest, ResultMeasuredByOtherSoftwareIsKeyedAndLabelledByIt) {
  // The orchestrator heard torch 2.11 first; a host with torch 2.10 took the job (both serve the
  // same NATS queue: same GPU model).
  const WorkerHello first_hello = Hello("NVIDIA H200", "2.11");
  const WorkerHello other = Hello("NVIDIA H200", "2.10");
  EvalResult r = EvaluateOnce({first_hello}, other);
  EXPECT_EQ(r.verdict, Verdict::kCorrect);
  EXPECT_EQ(r.worker, "host-b/gpu0");
  EXPECT_NE(r.cache_key, expected_key_);
  // A later run whose first worker has torch 2.11 must measure, not take the 2.10 figure...
  EvalResult next = EvaluateOnce({first_hello}, first_hello);
  EXPECT_FALSE(next.cached);
  EXPECT_EQ(jobs_, 2);
  // ...and a run on torch 2.10 finds it.
  EvalResult on_other = EvaluateOnce({other}, other);
  EXPECT_TRUE(on_other.cached);
  EXPECT_EQ(on_other.cache_key, r.cache_key);
  EXPECT_EQ(jobs_, 2);
}

TEST_F(EvaluatorTest, ResultMeasuredOnAnotherGpuNamesThatGpu) {
  // A host with two GPU models: the first worker has an H200, the job ran on the H100.
  EvalResult r = EvaluateOnce({Hello("NVIDIA H200", "2.11"), Hello("NVIDIA H100", "2.11")},
                              Hello("NVIDIA H100", "2.11"));
  EXPECT_EQ(r.device, "NVIDIA H100");
  EXPECT_NE(r.cache_key, expected_key_);
}

TEST_F(EvaluatorTest, BaselineMeasuredByOtherSoftwareIsKeyedAndLabelledByIt) {
  const WorkerHello first_hello = Hello("NVIDIA H200", "2.11");
  const WorkerHello other = Hello("NVIDIA H100", "2.10");
  Baseline b = BaselineOnce({first_hello}, other);
  ASSERT_TRUE(b.eager_ms().has_value());
  EXPECT_EQ(*b.eager_ms(), 2.0);
  EXPECT_EQ(b.device, "NVIDIA H100");
  EXPECT_NE(b.software.find("torch 2.10"), std::string::npos) << b.software;
  EXPECT_EQ(b.key, BaselineKey("aa11", StrictProfile(), false, other));
  // The first worker's software has no baseline yet; the other's is cached.
  EXPECT_FALSE(BaselineOnce({first_hello}, first_hello).cached);
  EXPECT_TRUE(BaselineOnce({other}, other).cached);
  EXPECT_EQ(jobs_, 2);
}

TEST_F(EvaluatorTest, AnOutOfMemoryBesideOthersIsRetriedAlone) {
  // Seen on the H200: a heavy task's reference phase beside another slot's ran out of device
  // memory (in the sandbox PyTorch's allocator asserts on NVML instead; the worker says
  // out_of_memory all the same): the job runs again with the device to itself.
  const WorkerHello h200 = Hello("NVIDIA H200", "2.11");
  facts_ = {{"status", "task_error"},
            {"error",
             {{"type", "RuntimeError"},
              {"message",
               "NVML_SUCCESS == DriverAPI::get()->nvmlInit_v2_() INTERNAL ASSERT FAILED at "
               "\"/pytorch/c10/cuda/CUDACachingAllocator.cpp\":1135, please report a bug to "
               "PyTorch. "},
              {"traceback", ""},
              {"triton_compile", false},
              {"cuda_error", nullptr},
              {"out_of_memory", true}}}};
  EXPECT_EQ(EvaluateOnce({h200}, h200).verdict, Verdict::kTaskError);
  EXPECT_EQ(jobs_, 2);  // Once beside others, once alone.
  ASSERT_EQ(options_.size(), 2u);
  EXPECT_FALSE(options_[0]["exclusive"].get<bool>());
  EXPECT_TRUE(options_[1]["exclusive"].get<bool>());
  // Another task error is judged at once.
  facts_["error"]["out_of_memory"] = false;
  std::filesystem::remove(dir_.path() + "/cache.sqlite");  // Measured again, not recalled.
  EXPECT_EQ(EvaluateOnce({h200}, h200).verdict, Verdict::kTaskError);
  EXPECT_EQ(jobs_, 3);
}

TEST_F(EvaluatorTest, TimeoutIsServedFromTheCacheOnlyUnderTheSameLimits) {
  const WorkerHello h200 = Hello("NVIDIA H200", "2.11");
  facts_ = {{"status", "timeout"}, {"message", "no result within 180 s"}};
  EXPECT_EQ(EvaluateOnce({h200}, h200).verdict, Verdict::kTimeout);
  EXPECT_TRUE(EvaluateOnce({h200}, h200).cached);  // Same limit: known to time out.
  EXPECT_EQ(jobs_, 1);
  profile_.timeout_s = 600;  // A longer limit may let it finish: measure.
  EvalResult longer = EvaluateOnce({h200}, h200);
  EXPECT_FALSE(longer.cached);
  EXPECT_EQ(jobs_, 2);
  // The same for the host-memory limit that killed a candidate.
  facts_ = {{"status", "memory_limit"}, {"phase", "candidate"}, {"memory_limit_mb", 4000}};
  profile_.memory_limit_mb = 4000;
  EXPECT_FALSE(EvaluateOnce({h200}, h200).cached);
  EXPECT_TRUE(EvaluateOnce({h200}, h200).cached);
  profile_.memory_limit_mb = 16000;
  EXPECT_FALSE(EvaluateOnce({h200}, h200).cached);
  EXPECT_EQ(jobs_, 4);
  // A result that completed holds whatever the limits.
  facts_ = test_facts::CorrectFacts();
  profile_.timeout_s = 60;
  EXPECT_FALSE(EvaluateOnce({h200}, h200).cached);
  profile_.timeout_s = 900;
  EXPECT_TRUE(EvaluateOnce({h200}, h200).cached);
}

json WrongFacts() {
  json wrong = test_facts::CorrectFacts();
  wrong.erase("timing");
  wrong["trials"][0]["passed"] = false;
  wrong["trials"][0]["outputs"][0]["values"] = {
      {"passed", false},
      {"violations", 16},
      {"numel", 16016},
      {"nonfinite_out", 0},
      {"max_abs_err", 0.5},
      {"worst", {{"flat_index", 1000}, {"out_text", "0.0"}, {"ref_text", "0.5"}}}};
  return wrong;
}

TEST_F(EvaluatorTest, ACorrectKernelIsCheckedAtOtherSizesBeforeItIsDeliveredOrCached) {
  const WorkerHello h200 = Hello("NVIDIA H200", "2.11");
  facts_["task_sizes"] = {{"batch_size", 16}, {"dim", 1000}, {"kernel_size", 3}};
  sizes_facts_ = WrongFacts();
  const EvalResult r = EvaluateOnce({h200}, h200);
  EXPECT_EQ(jobs_, 3);  // Its own sizes, then smaller and uneven.
  ASSERT_EQ(options_.size(), 3u);
  EXPECT_TRUE(options_[0]["sizes"].empty());
  EXPECT_EQ(options_[1]["sizes"], json({{"dim", 501}}));  // batch_size 16 and kernel_size stay.
  EXPECT_EQ(options_[2]["sizes"], json({{"dim", 1001}}));
  EXPECT_FALSE(options_[2]["measure"].get<bool>());
  // The references of a set are its own, not the task's.
  EXPECT_EQ(r.verdict, Verdict::kCorrect);
  EXPECT_TRUE(r.speedup.has_value());
  ASSERT_EQ(r.size_checks.size(), 2u);
  EXPECT_EQ(r.size_checks[0].outcome, SizeOutcome::kWrong);
  EXPECT_TRUE(CorrectAtTaskSizesOnly(r));
  ASSERT_FALSE(r.findings.empty());
  EXPECT_TRUE(r.findings.back().starts_with("correct at the task's sizes only: wrong at dim=501"))
      << r.findings.back();
  // The cache keeps the checks: the next run asks nothing of the workers.
  const EvalResult again = EvaluateOnce({h200}, h200);
  EXPECT_TRUE(again.cached);
  EXPECT_TRUE(CorrectAtTaskSizesOnly(again));
  EXPECT_EQ(jobs_, 3);
}

TEST_F(EvaluatorTest, ADefinitionCorrectOnItsSelectedWorkloadsIsCheckedAtTwoItLeftOut) {
  const WorkerHello h200 = Hello("NVIDIA H200", "2.11");
  EvalRequest request = Request();
  request.task.kind = TaskKind::kFlashInfer;
  request.task.workloads = {{{"uuid", "w1"}, {"axes", {{"M", 4}}}}};
  request.task.check_workloads = {{{"uuid", "w3"}, {"axes", {{"M", 7}}}},
                                  {{"uuid", "w9"}, {"axes", {{"M", 4096}}}}};
  workload_facts_["w9"] = WrongFacts();
  std::unique_ptr<Evaluator> evaluator = Make({h200}, h200);
  Result<std::vector<EvalResult>> results = evaluator->Run({request}, nullptr, nullptr);
  ASSERT_TRUE(results.ok());
  const EvalResult& r = results->at(0);
  EXPECT_EQ(jobs_, 3);  // The selected workload, then the two checks.
  ASSERT_EQ(options_.size(), 3u);
  EXPECT_TRUE(options_[1]["sizes"].empty());  // A workload is its own task, not resized.
  EXPECT_FALSE(options_[1]["measure"].get<bool>());
  EXPECT_EQ(options_[1]["trials"], kSizeCheckTrials);
  EXPECT_EQ(r.verdict, Verdict::kCorrect);
  ASSERT_EQ(r.size_checks.size(), 2u);
  EXPECT_EQ(r.size_checks[0].outcome, SizeOutcome::kPassed);
  EXPECT_EQ(r.size_checks[1].outcome, SizeOutcome::kWrong);
  EXPECT_TRUE(CorrectAtTaskSizesOnly(r));
  ASSERT_FALSE(r.findings.empty());
  EXPECT_TRUE(r.findings.back().starts_with(
      "correct on its selected workloads only: wrong at M=4096 (workload w9)"))
      << r.findings.back();
  EXPECT_EQ(evaluator->outstanding(), 0u);
  // Not a first measurement, or not checked under this profile: no checks.
  request.measurement = 1;
  ASSERT_TRUE(evaluator->Run({request}, nullptr, nullptr).ok());
  EXPECT_EQ(jobs_, 4);
  profile_.size_checks = false;
  request.measurement = 0;
  Result<std::vector<EvalResult>> unchecked = Make({h200}, h200)->Run({request}, nullptr, nullptr);
  ASSERT_TRUE(unchecked.ok());
  EXPECT_TRUE(unchecked->at(0).size_checks.empty());
}

// A set the candidate's own job checked, its two trials passing (the judge's indices from
// `first`).
json PassedSet(const std::string& name, int first) {
  return {{"name", name},
          {"ran", true},
          {"trials", {test_facts::PassingTrial(first), test_facts::PassingTrial(first + 1)}}};
}

TEST_F(EvaluatorTest, ASizeSetNotJudgedLeavesTheResultUncached) {
  const WorkerHello h200 = Hello("NVIDIA H200", "2.11");
  facts_["task_sizes"] = {{"dim", 1000}};
  sizes_facts_ = json{{"status", "timeout"}, {"message", "no result within 180 s"}};
  const EvalResult r = EvaluateOnce({h200}, h200);
  ASSERT_EQ(r.size_checks.size(), 2u);
  EXPECT_EQ(r.size_checks[0].outcome, SizeOutcome::kNotRun);
  EXPECT_FALSE(CorrectAtTaskSizesOnly(r));  // Not judged is never a mark.
  // Judged again, this time to the end, in the candidate's own job: the task's sizes are known.
  size_sets_facts_ = facts_;
  (*size_sets_facts_)["size_sets"] = {PassedSet("smaller", 2), PassedSet("uneven", 4)};
  const EvalResult again = EvaluateOnce({h200}, h200);
  EXPECT_FALSE(again.cached);
  ASSERT_EQ(again.size_checks.size(), 2u);
  EXPECT_EQ(again.size_checks[0].outcome, SizeOutcome::kPassed);
  EXPECT_TRUE(again.size_checks[0].in_job);
  EXPECT_EQ(jobs_, 4);
  EXPECT_TRUE(EvaluateOnce({h200}, h200).cached);
}

EvalRequest OtherCandidate() {
  EvalRequest request = {
      .task = {.path = "t.py", .name = "t", .source = "task", .sha256 = "aa11"},
      .candidate = {.path = "k2.py", .name = "k2", .source = "kernel 2", .sha256 = "cc33"}};
  return request;
}

TEST_F(EvaluatorTest, ALaterCandidateOfTheTaskChecksTheOtherSizesInItsOwnJob) {
  const WorkerHello h200 = Hello("NVIDIA H200", "2.11");
  facts_["task_sizes"] = {{"batch_size", 16}, {"dim", 1000}};
  sizes_facts_ = test_facts::CorrectFacts();
  EXPECT_EQ(EvaluateOnce({h200}, h200).size_checks.size(), 2u);
  EXPECT_EQ(jobs_, 3);  // The task's first candidate: a job per set, which reports its sizes.
  size_sets_facts_ = facts_;
  (*size_sets_facts_)["size_sets"] = {
      PassedSet("smaller", 2),
      {{"name", "uneven"},
       {"ran", true},
       {"trials", nlohmann::json::array()},
       {"error", {{"type", "IndexError"}, {"message", "out of bounds"}}}}};
  // Another run on the same cache: the sizes the task ran at were kept with the results.
  Result<std::vector<EvalResult>> results =
      Make({h200}, h200)->Run({OtherCandidate()}, nullptr, nullptr);
  ASSERT_TRUE(results.ok());
  EXPECT_EQ(jobs_, 4);  // One job.
  ASSERT_EQ(options_.size(), 4u);
  EXPECT_TRUE(options_[0]["size_sets"].empty());
  EXPECT_EQ(options_[3]["size_sets"],
            json::array({{{"name", "smaller"}, {"sizes", {{"dim", 501}}}, {"trials", 2}},
                         {{"name", "uneven"}, {"sizes", {{"dim", 1001}}}, {"trials", 2}}}));
  EXPECT_TRUE(options_[3]["sizes"].empty());  // Its own sizes first: it is timed there.
  const EvalResult& r = results->at(0);
  EXPECT_EQ(r.verdict, Verdict::kCorrect);
  EXPECT_TRUE(r.speedup.has_value());
  ASSERT_EQ(r.size_checks.size(), 2u);
  EXPECT_EQ(r.size_checks[0].outcome, SizeOutcome::kPassed);
  EXPECT_EQ(r.size_checks[1].outcome, SizeOutcome::kWrong);
  EXPECT_TRUE(r.size_checks[1].in_job);
  EXPECT_TRUE(r.findings.back().starts_with("correct at the task's sizes only: wrong at dim=1001"))
      << r.findings.back();
  // --refresh measures the candidate again; the task's sizes are the task's, read all the same.
  refresh_ = true;
  ASSERT_TRUE(Make({h200}, h200)->Run({OtherCandidate()}, nullptr, nullptr).ok());
  ASSERT_EQ(options_.size(), 5u);
  EXPECT_EQ(options_[4]["size_sets"].size(), 2u);
  refresh_ = false;
  // A confirmation (a later measurement) checks no sizes.
  EvalRequest confirm = OtherCandidate();
  confirm.measurement = 1;
  ASSERT_TRUE(Make({h200}, h200)->Run({confirm}, nullptr, nullptr).ok());
  ASSERT_EQ(options_.size(), 6u);
  EXPECT_TRUE(options_[5]["size_sets"].empty());
}

TEST_F(EvaluatorTest, ACandidateCannotSayTheReferenceFailsWhereTheTasksCheckJobsMadeIt) {
  const WorkerHello h200 = Hello("NVIDIA H200", "2.11");
  facts_["task_sizes"] = {{"dim", 1000}};
  sizes_facts_ = test_facts::CorrectFacts();  // The task's first candidate: both sets made.
  EvaluateOnce({h200}, h200);
  ASSERT_EQ(jobs_, 3);
  size_sets_facts_ = facts_;
  (*size_sets_facts_)["size_sets"] = {
      {{"name", "smaller"}, {"reference_error", "AssertionError: dim must be 1000"}},
      {{"name", "uneven"}, {"reference_error", "AssertionError: dim must be 1000"}}};
  // Another run on the same cache: what the task's check jobs made was kept with its sizes.
  Result<std::vector<EvalResult>> results =
      Make({h200}, h200)->Run({OtherCandidate()}, nullptr, nullptr);
  ASSERT_TRUE(results.ok());
  EXPECT_EQ(jobs_, 4);
  const EvalResult& r = results->at(0);
  ASSERT_EQ(r.size_checks.size(), 2u);
  EXPECT_EQ(r.size_checks[0].outcome, SizeOutcome::kWrong);
  EXPECT_TRUE(r.size_checks[0].detail.starts_with("forged_result: ")) << r.size_checks[0].detail;
  EXPECT_TRUE(CorrectAtTaskSizesOnly(r));
}

TEST_F(EvaluatorTest, AJobThatEndedAtItsSizeSetsIsMadeAgainWithoutThem) {
  const WorkerHello h200 = Hello("NVIDIA H200", "2.11");
  facts_["task_sizes"] = {{"dim", 1000}};
  sizes_facts_ = test_facts::CorrectFacts();
  EvaluateOnce({h200}, h200);
  ASSERT_EQ(jobs_, 3);
  // A crash at a set would take the verdict at the task's own sizes with it.
  size_sets_facts_ = json{{"status", "crash"}, {"signal", 11}, {"phase", "size_sets"}};
  sizes_facts_ = WrongFacts();
  Result<std::vector<EvalResult>> results =
      Make({h200}, h200)->Run({OtherCandidate()}, nullptr, nullptr);
  ASSERT_TRUE(results.ok());
  EXPECT_EQ(jobs_, 7);  // The crash, its own sizes again, then a job per set.
  ASSERT_EQ(options_.size(), 7u);
  EXPECT_FALSE(options_[3]["size_sets"].empty());
  EXPECT_TRUE(options_[4]["size_sets"].empty());
  EXPECT_FALSE(options_[5]["sizes"].empty());
  const EvalResult& r = results->at(0);
  EXPECT_EQ(r.verdict, Verdict::kCorrect);
  ASSERT_EQ(r.size_checks.size(), 2u);
  EXPECT_EQ(r.size_checks[0].outcome, SizeOutcome::kWrong);
  EXPECT_FALSE(r.size_checks[0].in_job);
}

TEST_F(EvaluatorTest, JobsOfTheSizeSetsHaveTheirOwnReferences) {
  const WorkerHello h200 = Hello("NVIDIA H200", "2.11");
  std::unique_ptr<Evaluator> evaluator = Make({h200}, h200);
  const SizeVariant uneven{.name = "uneven", .sizes = {{"dim", 1001}}};
  const json own = evaluator->JobMessage(Request());
  const json other = evaluator->JobMessage(Request(), SizeCheckJob{.set = &uneven});
  EXPECT_NE(own["reference_key"], other["reference_key"]);
  EXPECT_NE(own["id"], other["id"]);
  EXPECT_EQ(own["options"]["seed"], other["options"]["seed"]);  // The task's inputs' seed.
}

TEST_F(EvaluatorTest, AnIncorrectOrUnsizedResultIsNotCheckedAtOtherSizes) {
  const WorkerHello h200 = Hello("NVIDIA H200", "2.11");
  EXPECT_TRUE(EvaluateOnce({h200}, h200).size_checks.empty());  // No task_sizes: not KernelBench.
  EXPECT_EQ(jobs_, 1);
  facts_["task_sizes"] = {{"n", 4096}};
  facts_["trials"][1]["passed"] = false;
  facts_["trials"][1]["outputs"][0]["values"]["passed"] = false;
  std::filesystem::remove(dir_.path() + "/cache.sqlite");
  EXPECT_EQ(EvaluateOnce({h200}, h200).verdict, Verdict::kIncorrect);
  EXPECT_EQ(jobs_, 2);
}

// A worker that found compute-sanitizer.
WorkerHello WithSanitizer(WorkerHello hello) {
  hello.compute_sanitizer = {{"path", "/usr/local/cuda/bin/compute-sanitizer"},
                             {"version", "Version 2026.4.0"}};
  return hello;
}

json MemcheckErrors() {
  return {{"status", "ok"},
          {"sanitizer",
           {{{"tool", "memcheck"},
             {"ended", "errors"},
             {"exit_code", 86},
             {"signal", nullptr},
             {"wall_s", 9.5},
             {"errors", 2},
             {"records", {"Invalid __global__ read of size 4 bytes at relu_kernel+0x1d0"}},
             {"tail", ""}},
            {{"tool", "racecheck"},
             {"ended", "clean"},
             {"exit_code", 0},
             {"signal", nullptr},
             {"wall_s", 11.0},
             {"errors", 0},
             {"records", json::array()},
             {"tail", ""}}}}};
}

TEST_F(EvaluatorTest, EvalSanitizeRunsTheToolsOnACorrectKernelAndCachesTheirChecksApart) {
  const WorkerHello h200 = WithSanitizer(Hello("NVIDIA H200", "2.11"));
  profile_.size_checks = false;
  profile_.sanitize = true;
  sanitizer_facts_ = MemcheckErrors();
  const EvalResult r = EvaluateOnce({h200}, h200);
  EXPECT_EQ(jobs_, 2);  // The evaluation, then the sanitizer's job.
  ASSERT_EQ(options_.size(), 2u);
  EXPECT_TRUE(options_[0]["sanitize"].empty());
  EXPECT_EQ(options_[1]["sanitize"], json({"memcheck", "racecheck"}));
  EXPECT_FALSE(options_[1]["measure"].get<bool>());
  EXPECT_EQ(r.verdict, Verdict::kCorrect);  // Verdict and speedup stand.
  EXPECT_TRUE(r.speedup.has_value());
  ASSERT_EQ(r.sanitizer.size(), 2u);
  EXPECT_EQ(r.sanitizer[0].outcome, SanitizerOutcome::kErrors);
  EXPECT_EQ(r.sanitizer[1].outcome, SanitizerOutcome::kClean);
  EXPECT_TRUE(UnsafeUnderSanitizer(r));
  ASSERT_FALSE(r.findings.empty());
  EXPECT_TRUE(r.findings.back().starts_with("compute-sanitizer memcheck found 2 errors"))
      << r.findings.back();
  // Next time both come from the cache: no job at all.
  const EvalResult again = EvaluateOnce({h200}, h200);
  EXPECT_TRUE(again.cached);
  EXPECT_TRUE(UnsafeUnderSanitizer(again));
  EXPECT_EQ(jobs_, 2);
  // Without --sanitize the same cached result carries no checks.
  profile_.sanitize = false;
  EXPECT_TRUE(EvaluateOnce({h200}, h200).sanitizer.empty());
}

TEST_F(EvaluatorTest, WithoutTheToolOnTheWorkerTheChecksSayNotRunAndNoJobIsSent) {
  const WorkerHello h200 = Hello("NVIDIA H200", "2.11");  // Its hello names no tool.
  profile_.size_checks = false;
  profile_.sanitize = true;
  const EvalResult r = EvaluateOnce({h200}, h200);
  EXPECT_EQ(jobs_, 1);
  ASSERT_EQ(r.sanitizer.size(), 2u);
  EXPECT_EQ(r.sanitizer[0].outcome, SanitizerOutcome::kNotRun);
  EXPECT_NE(r.sanitizer[0].detail.find("not on the worker"), std::string::npos);
  EXPECT_FALSE(UnsafeUnderSanitizer(r));
}

TEST_F(EvaluatorTest, AnIncorrectKernelIsNotSanitized) {
  const WorkerHello h200 = WithSanitizer(Hello("NVIDIA H200", "2.11"));
  profile_.size_checks = false;
  profile_.sanitize = true;
  facts_["trials"][0]["passed"] = false;
  facts_["trials"][0]["outputs"][0]["values"]["passed"] = false;
  const EvalResult r = EvaluateOnce({h200}, h200);
  EXPECT_NE(r.verdict, Verdict::kCorrect);
  EXPECT_TRUE(r.sanitizer.empty());
  EXPECT_EQ(jobs_, 1);
}

TEST_F(EvaluatorTest, ASearchSanitizesTheKernelsItAsksFor) {
  const WorkerHello h200 = WithSanitizer(Hello("NVIDIA H200", "2.11"));
  profile_.size_checks = false;  // The search's profile: sanitize stays off.
  sanitizer_facts_ = MemcheckErrors();
  std::unique_ptr<Evaluator> evaluator = Make({h200}, h200);
  EvalResult judged;
  judged.verdict = Verdict::kCorrect;
  judged.speedup = 3.0;
  const uint64_t id = evaluator->SubmitSanitizer(Request(), judged);
  EXPECT_EQ(evaluator->outstanding(), 1u);
  std::vector<std::pair<uint64_t, EvalResult>> ready;
  while (ready.empty()) {
    Result<std::vector<std::pair<uint64_t, EvalResult>>> polled =
        evaluator->Poll(std::nullopt, nullptr);
    ASSERT_TRUE(polled.ok());
    ready = std::move(*polled);
  }
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].first, id);
  EXPECT_EQ(ready[0].second.speedup, 3.0);
  EXPECT_TRUE(UnsafeUnderSanitizer(ready[0].second));
  EXPECT_EQ(jobs_, 1);
  EXPECT_EQ(evaluator->outstanding(), 0u);
}

}  // namespace
}  // namespace adaexplore
