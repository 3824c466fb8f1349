#include "app/search_run.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/log.h"
#include "sys/fs.h"

namespace adaexplore {
namespace {

// run exits 130 when interrupted, 3 when a task has steps left, 1 when every LLM call of the
// session failed (no search result: the endpoint, key or model is wrong), else 0.
TEST(SearchRunOutcomeTest, ExitCodeSaysHowTheRunEnded) {
  SearchRunOutcome done;
  done.calls.calls = 4;
  done.calls.failed_calls = 1;
  EXPECT_EQ(done.ExitCode(), 0);
  EXPECT_FALSE(done.AllLlmCallsFailed());

  SearchRunOutcome failed = done;
  failed.calls.failed_calls = 4;
  EXPECT_TRUE(failed.AllLlmCallsFailed());
  EXPECT_EQ(failed.ExitCode(), 1);

  SearchRunOutcome stopped = failed;
  stopped.run.stopped = true;
  EXPECT_EQ(stopped.ExitCode(), 3);

  SearchRunOutcome interrupted = stopped;
  interrupted.run.interrupted = true;
  EXPECT_EQ(interrupted.ExitCode(), 130);

  SearchRunOutcome no_calls;  // Every step from the cache, say: not a failure.
  EXPECT_FALSE(no_calls.AllLlmCallsFailed());
  EXPECT_EQ(no_calls.ExitCode(), 0);
}

// Resuming from a database with no run is an error naming it, and the database (and its lock)
// the attempt created is gone again: nothing is left behind by a run that never started.
TEST(SearchRunTest, NothingToResumeLeavesNoDatabaseBehind) {
  Result<TempDir> dir = TempDir::Create("adaexplore-search-run-");
  ASSERT_TRUE(dir.ok());
  const std::string db = dir->path() + "/runs.sqlite";
  Config config;
  bool restored = false;
  SearchRunRequest request{.db_path = db, .out_dir = dir->path() + "/out", .resume = true};
  request.restore_settings = [&restored](const RunInfo&, Config&) {
    restored = true;
    return Status::Ok();
  };
  const InterruptGuard guard;
  Result<SearchRunOutcome> outcome = RunSearchRun(config, request, {}, NullLogger(), guard);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(outcome.status().message(), "no run to resume in " + db);
  EXPECT_FALSE(restored);
  EXPECT_FALSE(std::filesystem::exists(db));
  EXPECT_FALSE(std::filesystem::exists(db + ".lock"));
}

}  // namespace
}  // namespace adaexplore
