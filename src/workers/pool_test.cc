#include "workers/pool.h"

#include <gtest/gtest.h>

#include "sys/fs.h"

namespace adaexplore {
namespace {

// The pool against a fake worker (tests/fakes/fake_worker) that speaks the real protocol.
class WorkerPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<TempDir> dir = TempDir::Create("adx-pool-");
    ASSERT_TRUE(dir.ok());
    dir_.emplace(std::move(*dir));
  }

  WorkerSpec Spec(const std::string& label, int slots = 1, std::string startup = "ok") {
    WorkerSpec spec;
    spec.python = "python3";
    spec.python_path = std::string(ADAEXPLORE_SOURCE_DIR) + "/tests/fakes";
    spec.module = "fake_worker";
    spec.slots = slots;
    spec.scratch_dir = dir_->path() + "/" + label;
    spec.label = label;
    spec.startup_timeout_s = 20;
    spec.env = {{"FAKE_WORKER_STARTUP", std::move(startup)}};
    return spec;
  }

  static PoolJob Job(const std::string& id, const std::string& behaviour, double timeout = 20) {
    return PoolJob{.id = id,
                   .message = {{"candidate", {{"source", behaviour}}}, {"options", {{"x", 1}}}},
                   .timeout_s = timeout};
  }

  // Runs the pool until idle; returns outcomes by id.
  static std::map<std::string, PoolOutcome> Drain(WorkerPool& pool, double limit_s = 60) {
    std::map<std::string, PoolOutcome> out;
    const TimePoint deadline = Clock::now() + Seconds(limit_s);
    while (!pool.idle() && Clock::now() < deadline) {
      Result<std::vector<PoolOutcome>> step = pool.Step(deadline, nullptr);
      EXPECT_TRUE(step.ok());
      for (PoolOutcome& o : *step) {
        out[o.id] = std::move(o);
      }
    }
    return out;
  }

  std::optional<TempDir> dir_;
};

TEST_F(WorkerPoolTest, RunsJobsAndReturnsFacts) {
  WorkerPool pool({Spec("w0", 2)}, {});
  ASSERT_TRUE(pool.Start().ok());
  ASSERT_TRUE(pool.WaitReady(Clock::now() + Seconds(20), nullptr).ok());
  ASSERT_EQ(pool.ready_workers().size(), 1u);
  EXPECT_EQ(pool.ready_workers()[0].device_name, "fake-cpu");
  pool.Submit(Job("a", "result"));
  pool.Submit(Job("b", "result:forward_error"));
  pool.Submit(Job("c", "garbage"));
  auto out = Drain(pool);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out["a"].facts["status"], "ok");
  // The job's options reached the worker (the fake reports them as its one note).
  EXPECT_EQ(nlohmann::json::parse(out["a"].facts["notes"][0].get<std::string>())["x"], 1);
  EXPECT_EQ(out["b"].facts["status"], "forward_error");
  EXPECT_EQ(out["c"].facts["status"], "ok");  // A malformed line is skipped, not fatal.
}

TEST_F(WorkerPoolTest, AJobAvoidingAWorkerGoesToAnotherUnlessNoneIsReady) {
  WorkerPool pool({Spec("w0", 2), Spec("w1", 2)}, {});
  ASSERT_TRUE(pool.Start().ok());
  ASSERT_TRUE(pool.WaitReady(Clock::now() + Seconds(20), nullptr).ok());
  for (const std::string avoid : {"w0", "w1"}) {
    for (int i = 0; i < 3; ++i) {
      PoolJob job = Job(avoid + std::to_string(i), "result");
      job.avoid_worker = avoid;
      pool.Submit(std::move(job));
    }
  }
  for (const auto& [id, outcome] : Drain(pool)) {
    EXPECT_NE(outcome.worker, id.substr(0, 2)) << id;
  }
  WorkerPool alone({Spec("only")}, {});
  ASSERT_TRUE(alone.Start().ok());
  ASSERT_TRUE(alone.WaitReady(Clock::now() + Seconds(20), nullptr).ok());
  PoolJob job = Job("x", "result");
  job.avoid_worker = "only";
  alone.Submit(std::move(job));
  auto out = Drain(alone);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out["x"].worker, "only");  // No other worker: it runs where it must.
}

TEST_F(WorkerPoolTest, ReportsProgress) {
  std::vector<std::string> phases;
  WorkerPool pool({Spec("w0")}, {.on_progress = [&](const std::string&, const std::string& p) {
                    phases.push_back(p);
                  }});
  ASSERT_TRUE(pool.Start().ok());
  pool.Submit(Job("a", "result"));
  Drain(pool);
  EXPECT_EQ(phases, std::vector<std::string>{"check"});
}

TEST_F(WorkerPoolTest, RetriesAJobOnceWhenItsWorkerDies) {
  WorkerPool pool({Spec("w0")}, {.restart_backoff_s = 0.01});
  ASSERT_TRUE(pool.Start().ok());
  pool.Submit(Job("a", "die_once:" + dir_->path() + "/marker"));
  auto out = Drain(pool);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out["a"].facts["status"], "ok");
  EXPECT_EQ(out["a"].attempts, 2);
}

TEST_F(WorkerPoolTest, AJobThatKillsItsWorkerTwiceIsACrashAndTheNextJobRuns) {
  WorkerPool pool({Spec("w0")}, {.restart_backoff_s = 0.01});
  ASSERT_TRUE(pool.Start().ok());
  pool.Submit(Job("killer", "die"));
  pool.Submit(Job("after", "result"));
  auto out = Drain(pool);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out["killer"].facts["status"], "crash");
  EXPECT_NE(out["killer"].facts["message"].get<std::string>().find("died 2 times"),
            std::string::npos);
  EXPECT_EQ(out["after"].facts["status"], "ok");
}

TEST_F(WorkerPoolTest, AWorkerStoppedFromOutsideIsNotTheCandidatesCrash) {
  WorkerPool pool({Spec("w0")}, {.restart_backoff_s = 0.01});
  ASSERT_TRUE(pool.Start().ok());
  pool.Submit(Job("victim", "stopped"));
  pool.Submit(Job("after", "result"));
  auto out = Drain(pool);
  ASSERT_EQ(out.size(), 2u);
  // Three deaths, none counted against it: the harness's error (never cached), not a crash.
  EXPECT_EQ(out["victim"].facts["status"], "harness_error");
  const std::string message = out["victim"].facts["message"];
  EXPECT_NE(message.find("died 3 times"), std::string::npos) << message;
  EXPECT_NE(message.find("SIGTERM from pid 1"), std::string::npos) << message;
  EXPECT_EQ(out["victim"].attempts, 1);
  EXPECT_EQ(out["after"].facts["status"], "ok");
}

TEST_F(WorkerPoolTest, AWorkerThatDiesBeforeTheCandidateIsImportedIsNotItsCrash) {
  WorkerPool pool({Spec("w0")}, {.restart_backoff_s = 0.01});
  ASSERT_TRUE(pool.Start().ok());
  pool.Submit(Job("early", "die_in_reference"));
  auto out = Drain(pool);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out["early"].facts["status"], "harness_error");
  EXPECT_NE(out["early"].facts["message"].get<std::string>().find("before the candidate"),
            std::string::npos);
}

TEST_F(WorkerPoolTest, AChildKilledBySomeoneIsACrashOnlyIfItHappensAgainAlone) {
  WorkerPool pool({Spec("w0", /*slots=*/2)}, {.restart_backoff_s = 0.01});
  ASSERT_TRUE(pool.Start().ok());
  pool.Submit(Job("once", "signalled_once:" + dir_->path() + "/marker"));
  pool.Submit(Job("always", "signalled"));
  auto out = Drain(pool);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out["once"].facts["status"], "ok");
  EXPECT_EQ(out["once"].attempts, 2);
  ASSERT_TRUE(out["once"].facts["notes"].is_array());
  EXPECT_NE(out["once"].facts["notes"].back().get<std::string>().find("ran alone"),
            std::string::npos);
  EXPECT_EQ(out["always"].facts["status"], "crash");
  EXPECT_EQ(out["always"].attempts, 2);
}

TEST_F(WorkerPoolTest, AHungWorkerMissesItsOuterDeadlineAndIsReplaced) {
  WorkerPool pool({Spec("w0")}, {.deadline_margin_s = 0.5});
  ASSERT_TRUE(pool.Start().ok());
  pool.Submit(Job("hung", "hang", /*timeout=*/0.5));
  pool.Submit(Job("after", "result"));
  const TimePoint start = Clock::now();
  auto out = Drain(pool, 30);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out["hung"].facts["status"], "timeout");
  EXPECT_EQ(out["after"].facts["status"], "ok");
  EXPECT_LT(ToSeconds(Clock::now() - start), 20.0);
}

TEST_F(WorkerPoolTest, TheOuterDeadlineFollowsTheLimitTheWorkerReports) {
  // The job's limit and margin are 1.5 s; the worker waits 4 s for the GPU lock, saying each
  // second that its whole limit remains: no deadline passes.
  WorkerPool pool({Spec("w0")}, {.deadline_margin_s = 0.5});
  ASSERT_TRUE(pool.Start().ok());
  pool.Submit(Job("waits", "waits:4", /*timeout=*/1.0));
  auto out = Drain(pool, 30);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out["waits"].facts["status"], "ok") << out["waits"].facts.dump();
}

TEST_F(WorkerPoolTest, AWorkerPreparingAheadIsSentJobsBeyondItsSlots) {
  WorkerSpec spec = Spec("w0", 2);
  spec.ahead = 1;
  WorkerPool pool({spec}, {});
  ASSERT_TRUE(pool.Start().ok());
  ASSERT_TRUE(pool.WaitReady(Clock::now() + Seconds(20), nullptr).ok());
  EXPECT_EQ(pool.ready_workers()[0].ahead, 1);
  EXPECT_EQ(pool.capacity(), 3);
  for (const char* id : {"a", "b", "c", "d"}) {
    pool.Submit(Job(id, "slow:1"));
  }
  // The fake answers one at a time: the first Step dispatches and returns before any result.
  ASSERT_TRUE(pool.Step(Clock::now() + Seconds(0.2), nullptr).ok());
  EXPECT_EQ(pool.in_flight(), 3u);
  EXPECT_EQ(Drain(pool).size(), 4u);  // The one left over runs after.
}

TEST_F(WorkerPoolTest, BadHelloFailsTheWorkerWithTheReason) {
  WorkerPool pool({Spec("w0", 1, "bad_version")}, {});
  ASSERT_TRUE(pool.Start().ok());
  Status ready = pool.WaitReady(Clock::now() + Seconds(20), nullptr);
  EXPECT_FALSE(ready.ok());
  EXPECT_NE(ready.message().find("protocol version 99"), std::string::npos) << ready.message();
}

TEST_F(WorkerPoolTest, WorkerStartupErrorIsReported) {
  WorkerPool pool({Spec("w0", 1, "hello_error")}, {});
  ASSERT_TRUE(pool.Start().ok());
  Status ready = pool.WaitReady(Clock::now() + Seconds(20), nullptr);
  EXPECT_NE(ready.message().find("CUDA is not available"), std::string::npos) << ready.message();
}

TEST_F(WorkerPoolTest, JobsFailCleanlyWhenNoWorkerCanRun) {
  WorkerPool pool({Spec("w0", 1, "exit_before_hello")}, {});
  ASSERT_TRUE(pool.Start().ok());
  pool.Submit(Job("a", "result"));
  auto out = Drain(pool, 20);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out["a"].facts["status"], "harness_error");
  EXPECT_NE(out["a"].facts["message"].get<std::string>().find("exited before saying hello"),
            std::string::npos);
}

TEST_F(WorkerPoolTest, OneBrokenWorkerDoesNotStopTheOthers) {
  WorkerPool pool({Spec("bad", 1, "exit_before_hello"), Spec("good", 1, "garbage_then_hello")}, {});
  ASSERT_TRUE(pool.Start().ok());
  ASSERT_TRUE(pool.WaitReady(Clock::now() + Seconds(20), nullptr).ok());
  pool.Submit(Job("a", "result"));
  auto out = Drain(pool);
  EXPECT_EQ(out["a"].facts["status"], "ok");
  EXPECT_EQ(out["a"].worker, "good");
}

TEST_F(WorkerPoolTest, InterruptCancelsTheStep) {
  InterruptGuard guard;
  WorkerPool pool({Spec("w0")}, {});
  ASSERT_TRUE(pool.Start().ok());
  pool.Submit(Job("hung", "hang"));
  InterruptGuard::TEST_Raise(SIGINT);
  Result<std::vector<PoolOutcome>> step = pool.Step(std::nullopt, &guard);
  EXPECT_EQ(step.status().code(), StatusCode::kCancelled);
}

}  // namespace
}  // namespace adaexplore
