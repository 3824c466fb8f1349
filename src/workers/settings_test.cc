#include "workers/settings.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

const Setting<WorkerSettings>& Row(std::string_view name) {
  for (const Setting<WorkerSettings>& s : WorkerSettingTable()) {
    if (s.name == name) {
      return s;
    }
  }
  ADD_FAILURE() << "no worker setting " << name;
  return WorkerSettingTable().front();
}

TEST(WorkerSettingsTest, EverySettingHasItsFlagAndReachesItsField) {
  ASSERT_EQ(WorkerSettingTable().size(), 8U);
  for (const Setting<WorkerSettings>& s : WorkerSettingTable()) {
    EXPECT_TRUE(s.flag.starts_with("--")) << s.name;
    EXPECT_FALSE(s.fingerprint) << s.name;        // Where a kernel runs is no part of its verdict.
    EXPECT_TRUE(s.job_option.empty()) << s.name;  // The worker's own, never a job's.
  }
  WorkerSettings workers;
  ASSERT_TRUE(
      ApplyWorkerSettings(
          {{"python", "/opt/py"}, {"device", "cuda"}, {"gpus", {0, 2}}, {"slots", 3}}, workers)
          .ok());
  EXPECT_EQ(workers.python, "/opt/py");
  EXPECT_EQ(workers.device, "cuda");
  EXPECT_EQ(workers.gpus, (std::vector<int>{0, 2}));
  EXPECT_EQ(workers.slots, 3);
  EXPECT_EQ(Row("slots").get(workers), 3);
  ASSERT_TRUE(ApplyWorkerSettings({{"prepare_ahead", 0},
                                   {"reference_cache_mb", 512.5},
                                   {"judge_threads", 2},
                                   {"lock_patience_s", 0.5}},
                                  workers)
                  .ok());
  EXPECT_EQ(workers.prepare_ahead, 0);
  EXPECT_DOUBLE_EQ(workers.reference_cache_mb, 512.5);
  EXPECT_EQ(workers.judge_threads, 2);
  EXPECT_DOUBLE_EQ(workers.lock_patience_s, 0.5);
  EXPECT_EQ(SettingValueFromText(Row("judge_threads"), "0").status().message(),
            "--judge-threads 0: must be at least 1");
  EXPECT_TRUE(Row("slots").get(WorkerSettings{}).is_null());  // Unset: the device's default.
}

// A flag's text is read into the same values the file gives, and refused in the same words.
TEST(WorkerSettingsTest, FlagTextIsCheckedLikeTheFile) {
  Result<nlohmann::json> gpus = SettingValueFromText(Row("gpus"), "0,2");
  ASSERT_TRUE(gpus.ok()) << gpus.status().message();
  EXPECT_EQ(*gpus, nlohmann::json::array({0, 2}));
  EXPECT_EQ(SettingValueFromText(Row("gpus"), "1,-1").status().message(),
            "--gpus 1,-1: each must be at least 0");
  EXPECT_EQ(SettingValueFromText(Row("gpus"), "1,x").status().message(),
            "--gpus 1,x: must be a list of integers");
  EXPECT_EQ(SettingValueFromText(Row("gpus"), "").status().message(),
            "--gpus : must be a list of integers");
  EXPECT_EQ(SettingValueFromText(Row("slots"), "0").status().message(),
            "--slots 0: must lie in [1, 1024]");
  EXPECT_EQ(SettingValueFromText(Row("device"), "tpu").status().message(),
            "--device tpu: must be one of auto, cuda, cpu");
}

TEST(WorkerSettingsTest, ARefusedValueChangesNothing) {
  WorkerSettings workers;
  Status s = ApplyWorkerSettings({{"device", "cpu"}, {"slots", 2000}}, workers);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("slots"), std::string::npos);
  EXPECT_EQ(workers.device, "auto");
  EXPECT_FALSE(ApplyWorkerSettings({{"slot", 2}}, workers).ok());
}

// A run stored while judge_threads and the others were evaluation settings kept them there.
TEST(WorkerSettingsTest, StoredEvaluationSettingsLoseTheWorkersOnes) {
  const nlohmann::json stored = {{"trials", 3}, {"judge_threads", 8}, {"prepare_ahead", 1}};
  EXPECT_EQ(WithoutWorkerSettings(stored), (nlohmann::json{{"trials", 3}}));
}

}  // namespace
}  // namespace adaexplore
