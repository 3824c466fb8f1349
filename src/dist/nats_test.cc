#include "dist/nats.h"

#include <gtest/gtest.h>

#include "dist/nats_pool.h"

namespace adaexplore {
namespace {

TEST(NatsTest, QueueNamesFollowTheDeviceModel) {
  EXPECT_EQ(nats::QueueName(DeviceKind::kCuda, "NVIDIA H200"), "nvidia-h200");
  EXPECT_EQ(nats::QueueName(DeviceKind::kCuda, "NVIDIA A100-SXM4-80GB"), "nvidia-a100-sxm4-80gb");
  EXPECT_EQ(nats::QueueName(DeviceKind::kCuda, "  Odd..Name  "), "odd-name");
  EXPECT_EQ(nats::QueueName(DeviceKind::kCuda, "***"), "gpu");
  EXPECT_EQ(nats::QueueName(DeviceKind::kCpu, "AMD EPYC 9654"), "cpu");
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
  const nlohmann::json result =
      ResultEnvelope("abc", {{"status", "ok"}}, "host-a/gpu1", 2, std::nullopt);
  EXPECT_EQ(result["id"], "abc");
  EXPECT_EQ(result["facts"]["status"], "ok");
  EXPECT_EQ(result["worker"], "host-a/gpu1");
  EXPECT_EQ(result["delivered"], 2);
  EXPECT_FALSE(result.contains("hello"));
  // The measuring worker's hello travels with its result and reads back whole on the other side.
  const nlohmann::json hello_message = {
      {"type", "hello"},
      {"protocol", kProtocolVersion},
      {"torch", "2.10"},
      {"triton", "3.6"},
      {"harness", "0123456789abcdef"},
      {"device",
       {{"kind", "cuda"},
        {"name", "NVIDIA H200"},
        {"ceilings", {{"copy_bytes_per_s", 4.3e12}, {"bf16_flops_per_s", 7.9e14}}}}}};
  const WorkerHello hello = *ParseHello(hello_message);
  const nlohmann::json with = ResultEnvelope("abc", {}, "host-b/gpu0", 1, hello);
  Result<WorkerHello> relayed = ParseHello(with["hello"]);
  ASSERT_TRUE(relayed.ok()) << relayed.status().ToString();
  EXPECT_EQ(relayed->Fingerprint(), hello.Fingerprint());
  EXPECT_EQ(relayed->ceilings.copy_bytes_per_s, 4.3e12);
  EXPECT_EQ(relayed->ceilings.bf16_flops_per_s, 7.9e14);
}

TEST(NatsTest, NoServerIsAnErrorNamingTheUrl) {
  Result<nats::Connection> c =
      nats::Connection::Connect({.url = "nats://127.0.0.1:1", .timeout_s = 1});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("nats://127.0.0.1:1"), std::string::npos);
}

}  // namespace
}  // namespace adaexplore
