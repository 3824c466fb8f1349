#include "workers/protocol.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "eval/checks.h"
#include "eval/classify.h"
#include "eval/profile.h"
#include "golden.h"

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
      {"type", "hello"}, {"protocol", kProtocolVersion},
      {"torch", "2.11"}, {"triton", "3.6"},
      {"slots", 2},      {"device", {{"kind", "cuda"}, {"name", "NVIDIA H200"}}}};
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
  EXPECT_FALSE(ParseHello(measured)->ceilings.sm.known());
  // The fp32 rate and the SM's limits, as the worker's probe gives them on the H200.
  measured["device"]["ceilings"].update({{"fp32_flops_per_s", 5.1e13},
                                         {"sm_registers", 65536},
                                         {"sm_shared_bytes", 233472},
                                         {"sm_threads", 2048},
                                         {"sms", 132}});
  const DeviceCeilings h200 = ParseHello(measured)->ceilings;
  EXPECT_EQ(h200.fp32_flops_per_s, 5.1e13);
  EXPECT_TRUE(h200.sm.known());
  EXPECT_EQ(h200.sm.registers, 65536);
  EXPECT_EQ(h200.sm.shared_bytes, 233472);
  EXPECT_EQ(h200.sm.threads, 2048);
  EXPECT_EQ(h200.sm.blocks, 32);
  EXPECT_EQ(h200.sm.sms, 132);

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

// The golden files both sides' tests read (tests/golden/protocol): ADAEXPLORE_UPDATE_GOLDEN=1
// writes the C++ side's version of them instead, for review in the diff.
std::filesystem::path GoldenDirectory() {
  return std::filesystem::path(ADAEXPLORE_SOURCE_DIR) / "tests/golden/protocol";
}

nlohmann::json ReadGolden(const std::string& name) {
  return nlohmann::json::parse(golden::ReadText(GoldenDirectory() / name), nullptr,
                               /*allow_exceptions=*/false);
}

// Compares `made` with the golden file `name`, or writes it when asked to update.
void ExpectGolden(const std::string& name, const nlohmann::json& made) {
  golden::ExpectFile(GoldenDirectory() / name, made.dump(2) + "\n",
                     "if the schema changed on purpose, bump kProtocolVersion when what is sent "
                     "changed");
}

EvalJob GoldenJob(const EvalProfile& profile, DeviceKind device) {
  return EvalJob{.id = "0123456789abcdef",
                 .nonce = "00112233445566778899aabbccddeeff",
                 .task = {"relu.py", "import torch\n"},
                 .candidate = {"relu_new.py", "import torch\n"},
                 .options = profile.ToJobOptions(device),
                 .timeout_s = profile.timeout_s,
                 .memory_limit_mb = profile.memory_limit_mb};
}

TEST(ProtocolGoldenTest, TheSchemaIsTheOneBothSidesDeclare) {
  ExpectGolden("fields.json", SchemaFields());
}

// The integrity rules findings name (eval/checks.h), for the worker's tests.
TEST(ProtocolGoldenTest, TheRulesAreTheOnesBothSidesName) {
  ExpectGolden("rules.json", IntegrityRuleNames());
}

TEST(ProtocolGoldenTest, JobsAreTheGoldenOnesAndReadBack) {
  EvalJob strict = GoldenJob(StrictProfile(), DeviceKind::kCuda);
  strict.options.seed = 1234567;
  EvalJob paper = GoldenJob(PaperProfile(), DeviceKind::kCpu);
  EvalJob baseline = GoldenJob(StrictProfile(), DeviceKind::kCuda);
  baseline.options.baseline = true;
  baseline.options.compile_baseline = true;
  baseline.options.seed = 99;
  for (const auto& [name, job] :
       {std::pair{"job_strict.json", strict}, std::pair{"job_paper.json", paper},
        std::pair{"job_baseline.json", baseline}}) {
    ExpectGolden(name, ToJson(job));
    Result<EvalJob> read = EvalJobFromJson(ToJson(job));
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_EQ(ToJson(*read), ToJson(job)) << name;
  }
}

TEST(ProtocolGoldenTest, AJobLackingOrAddingAKeyOrMistypingOneIsRefusedByName) {
  const nlohmann::json job = ToJson(GoldenJob(StrictProfile(), DeviceKind::kCpu));
  nlohmann::json lacking = job;
  lacking["options"].erase("init_seed");
  EXPECT_NE(EvalJobFromJson(lacking).status().message().find("'init_seed'"), std::string::npos);
  nlohmann::json adding = job;
  adding["options"]["turbo"] = true;
  EXPECT_NE(EvalJobFromJson(adding).status().message().find("'turbo'"), std::string::npos);
  nlohmann::json mistyped = job;
  mistyped["options"]["trials"] = "5";
  EXPECT_NE(EvalJobFromJson(mistyped).status().message().find("options.trials"), std::string::npos);
  nlohmann::json boolean_as_number = job;
  boolean_as_number["options"]["l2_flush"] = 1;
  EXPECT_EQ(EvalJobFromJson(boolean_as_number).status().code(), StatusCode::kProtocolError);
  nlohmann::json negative_seed = job;
  negative_seed["options"]["seed"] = -1;
  EXPECT_EQ(EvalJobFromJson(negative_seed).status().code(), StatusCode::kProtocolError);
  nlohmann::json unknown_choice = job;
  unknown_choice["options"]["precision"] = "fp8";
  const Status choice = EvalJobFromJson(unknown_choice).status();
  EXPECT_EQ(choice.code(), StatusCode::kProtocolError);
  EXPECT_NE(choice.message().find("options.precision"), std::string::npos);
  EXPECT_NE(choice.message().find("fp32, bf16, fp16"), std::string::npos);
  nlohmann::json no_source = job;
  no_source["task"].erase("source");
  EXPECT_NE(EvalJobFromJson(no_source).status().message().find("job.task"), std::string::npos);
}

// Each verdict path's facts, as a worker reports them: every file is declared facts, and
// classifies to the verdict it names.
TEST(ProtocolGoldenTest, GoldenFactsClassifyToTheirVerdicts) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(GoldenDirectory() / "facts")) {
    const nlohmann::json golden = ReadGolden("facts/" + entry.path().filename().string());
    ASSERT_TRUE(golden.is_object()) << entry.path();
    const nlohmann::json& facts = golden["facts"];
    EXPECT_TRUE(ValidateFacts(facts).ok())
        << entry.path() << ": " << ValidateFacts(facts).ToString();
    Result<EvalProfile> profile = ProfileByName(golden.value("profile", "strict"));
    ASSERT_TRUE(profile.ok());
    EvalResult result;
    Classify(facts, *profile, result);
    EXPECT_EQ(VerdictName(result.verdict), golden.value("verdict", "?"))
        << entry.path() << ": " << result.reason;
    EXPECT_NE(result.reason.find(golden.value("reason_has", "")), std::string::npos)
        << entry.path() << ": " << result.reason;
    // A rejection names its check (eval/checks.h); nothing else does.
    EXPECT_EQ(result.check, golden.value("check", "")) << entry.path();
    ++files;
  }
  // One file per status at least: every way an evaluation can end is pinned down.
  EXPECT_GE(files, static_cast<int>(AllFactStatuses().size()));
}

TEST(ProtocolTest, UndeclaredOrMistypedFactsAreAProtocolError) {
  EXPECT_TRUE(ValidateFacts({{"status", "ok"}, {"exit_code", nullptr}}).ok());
  EXPECT_TRUE(ValidateFacts({{"status", "crash"}, {"exit_code", 3}}).ok());
  EXPECT_FALSE(ValidateFacts({{"status", "fine"}}).ok());
  EXPECT_FALSE(ValidateFacts({{"phases", nlohmann::json::object()}}).ok());
  EXPECT_FALSE(ValidateFacts({{"status", "ok"}, {"speedup", 3.0}}).ok());
  EXPECT_FALSE(ValidateFacts({{"status", "ok"}, {"trials", "all passed"}}).ok());
  EvalResult result;
  Classify({{"status", "ok"}, {"verdict", "correct"}}, StrictProfile(), result);
  EXPECT_EQ(result.verdict, Verdict::kError);
  EXPECT_NE(result.reason.find("facts.verdict"), std::string::npos) << result.reason;
}

TEST(ProtocolTest, EveryStatusHasOneNameThatParsesBack) {
  for (FactStatus status : AllFactStatuses()) {
    EXPECT_EQ(ParseFactStatus(FactStatusName(status)), status);
  }
  EXPECT_FALSE(ParseFactStatus("okay").has_value());
}

}  // namespace
}  // namespace adaexplore
