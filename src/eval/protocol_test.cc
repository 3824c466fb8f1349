#include "eval/protocol.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

TEST(ProtocolTest, ParsesResultsAndProgress) {
  Result<WorkerEvent> e = ParseWorkerLine(R"({"type":"result","id":"j1","facts":{"status":"ok"}})");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->kind, WorkerEvent::Kind::kResult);
  EXPECT_EQ(e->id, "j1");
  e = ParseWorkerLine(R"({"type":"progress","id":"j1","phase":"timing"})");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->kind, WorkerEvent::Kind::kProgress);
}

TEST(ProtocolTest, RejectsMalformedLines) {
  for (const char* line :
       {"", "not json", "[1,2]", R"({"type":"result","facts":{}})", R"({"type":"result","id":"x"})",
        R"({"type":"result","id":7})", R"({"type":"party","id":"x"})"}) {
    Result<WorkerEvent> e = ParseWorkerLine(line);
    EXPECT_EQ(e.status().code(), StatusCode::kProtocolError) << line;
  }
}

TEST(ProtocolTest, HelloValidatesVersionAndDevice) {
  nlohmann::json hello = {
      {"type", "hello"}, {"protocol", 1}, {"torch", "2.11"},
      {"triton", "3.6"}, {"slots", 2},    {"device", {{"kind", "cuda"}, {"name", "NVIDIA H200"}}}};
  Result<WorkerHello> h = ParseHello(hello);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->device_name, "NVIDIA H200");
  EXPECT_EQ(h->slots, 2);
  EXPECT_NE(h->Fingerprint().find("NVIDIA H200"), std::string::npos);
  // Another worker version (its checks or timer changed) is another fingerprint.
  nlohmann::json newer = hello;
  newer["harness"] = "0123456789abcdef0123";
  EXPECT_NE(ParseHello(newer)->Fingerprint(), h->Fingerprint());
  EXPECT_FALSE(h->ceilings.known());
  nlohmann::json measured = hello;
  measured["device"]["ceilings"] = {{"copy_bytes_per_s", 4.3e12}, {"bf16_flops_per_s", 7.9e14}};
  EXPECT_TRUE(ParseHello(measured)->ceilings.known());

  nlohmann::json old = hello;
  old["protocol"] = 0;
  EXPECT_EQ(ParseHello(old).status().code(), StatusCode::kProtocolError);
  nlohmann::json failed = hello;
  failed["error"] = "no GPU";
  EXPECT_EQ(ParseHello(failed).status().code(), StatusCode::kUnavailable);
  nlohmann::json no_device = hello;
  no_device.erase("device");
  EXPECT_FALSE(ParseHello(no_device).ok());
  nlohmann::json wrong_type = hello;
  wrong_type["slots"] = "two";
  EXPECT_FALSE(ParseHello(wrong_type).ok());
}

}  // namespace
}  // namespace adaexplore
