#include "dist/nats.h"

#include <gtest/gtest.h>

#include "dist/nats_pool.h"

namespace adaexplore {
namespace {

TEST(NatsTest, QueueNamesFollowTheDeviceModel) {
  EXPECT_EQ(nats::QueueName("cuda", "NVIDIA H200"), "nvidia-h200");
  EXPECT_EQ(nats::QueueName("cuda", "NVIDIA A100-SXM4-80GB"), "nvidia-a100-sxm4-80gb");
  EXPECT_EQ(nats::QueueName("cuda", "  Odd..Name  "), "odd-name");
  EXPECT_EQ(nats::QueueName("cuda", "***"), "gpu");
  EXPECT_EQ(nats::QueueName("cpu", "AMD EPYC 9654"), "cpu");
}

TEST(NatsTest, Subjects) {
  EXPECT_EQ(nats::JobSubject("nvidia-h200"), "adx.jobs.nvidia-h200");
  EXPECT_EQ(nats::ResultSubject("r1"), "adx.results.r1");
  EXPECT_EQ(nats::ProgressSubject("r1"), "adx.progress.r1");
  EXPECT_EQ(nats::HelloSubject("cpu"), "adx.hello.cpu");
  EXPECT_EQ(nats::HelloSubject(""), "adx.hello");
}

TEST(NatsTest, EnvelopesCarryWhatTheOtherSideNeeds) {
  const nlohmann::json job =
      JobEnvelope(PoolJob{.id = "abc", .message = {{"task", "t"}}, .timeout_s = 90}, "run1");
  EXPECT_EQ(job["id"], "abc");
  EXPECT_EQ(job["message"]["task"], "t");
  EXPECT_EQ(job["timeout_s"], 90.0);
  EXPECT_EQ(job["reply"], "adx.results.run1");
  EXPECT_EQ(job["progress"], "adx.progress.run1");
  const nlohmann::json result = ResultEnvelope("abc", {{"status", "ok"}}, "host-a/gpu1", 2);
  EXPECT_EQ(result["id"], "abc");
  EXPECT_EQ(result["facts"]["status"], "ok");
  EXPECT_EQ(result["worker"], "host-a/gpu1");
  EXPECT_EQ(result["delivered"], 2);
}

TEST(NatsTest, NoServerIsAnErrorNamingTheUrl) {
  Result<nats::Connection> c =
      nats::Connection::Connect({.url = "nats://127.0.0.1:1", .timeout_s = 1});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("nats://127.0.0.1:1"), std::string::npos);
}

}  // namespace
}  // namespace adaexplore
