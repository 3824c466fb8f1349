#include "workers/facts.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "golden.h"

namespace adaexplore {
namespace {

using nlohmann::json;

// A golden facts file (tests/golden/protocol/facts), as a worker reported them.
json GoldenFacts(const std::string& name) {
  const json golden = json::parse(golden::ReadText(std::filesystem::path(ADAEXPLORE_SOURCE_DIR) /
                                                   "tests/golden/protocol/facts" / name),
                                  nullptr, /*allow_exceptions=*/false);
  return golden.is_object() ? golden.value("facts", json()) : json();
}

std::string DecodeError(const json& facts) { return DecodeFacts(facts).status().message(); }

TEST(FactsGoldenTest, AWrongTrialDecodesToItsFields) {
  Result<Facts> facts = DecodeFacts(GoldenFacts("ok_incorrect.json"));
  ASSERT_TRUE(facts.ok()) << facts.status().ToString();
  EXPECT_EQ(facts->status, FactStatus::kOk);
  EXPECT_EQ(facts->device_name, "cpu");
  EXPECT_EQ(facts->wall_s, 1.2618);
  ASSERT_EQ(facts->trials.size(), 1u);
  const Trial& trial = facts->trials[0];
  EXPECT_EQ(trial.index, 0);
  EXPECT_EQ(trial.distribution, "task");
  EXPECT_FALSE(trial.passed);
  EXPECT_FALSE(trial.integrity);
  EXPECT_TRUE(trial.inputs_mutated.empty());
  ASSERT_EQ(trial.outputs.size(), 1u);
  const TrialOutput& output = trial.outputs[0];
  EXPECT_TRUE(output.form.exact_tensor);
  EXPECT_TRUE(output.form.problems.empty());
  EXPECT_FALSE(output.values.passed);
  EXPECT_EQ(output.values.violations, 7717);
  EXPECT_EQ(output.values.numel, 16000);
  EXPECT_EQ(output.values.max_abs_err, 0.03944180905818939);
  EXPECT_EQ(output.values.ref_max_abs, 3.830568790435791);
  ASSERT_TRUE(output.values.worst.has_value());
  EXPECT_EQ(output.values.worst->out_text, "-0.006808964069932699");
  EXPECT_EQ(output.values.worst->ref_text, "0.0");
  ASSERT_EQ(facts->reference.outputs.size(), 1u);
  EXPECT_EQ(facts->reference.outputs[0].dtype, "float32");
  EXPECT_EQ(facts->reference.self_error.size(), 2u);
  EXPECT_EQ(facts->roofline.io_bytes, 128000);
  EXPECT_EQ(facts->null_kernels.size(), 4u);
  EXPECT_FALSE(facts->null_kernels.at("zeros"));
  EXPECT_FALSE(facts->timing.has_value());  // Not timed: the candidate was wrong.
  EXPECT_FALSE(facts->kernel_trace.has_value());
}

TEST(FactsGoldenTest, EveryGoldenFactsFileDecodes) {
  int files = 0;
  const auto directory =
      std::filesystem::path(ADAEXPLORE_SOURCE_DIR) / "tests/golden/protocol/facts";
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    Result<Facts> facts = DecodeFacts(GoldenFacts(entry.path().filename().string()));
    EXPECT_TRUE(facts.ok()) << entry.path() << ": " << facts.status().ToString();
    ++files;
  }
  EXPECT_GT(files, 0);
}

TEST(FactsGoldenTest, AnErrorAndACrashDecode) {
  Result<Facts> cuda = DecodeFacts(GoldenFacts("forward_error_cuda.json"));
  ASSERT_TRUE(cuda.ok()) << cuda.status().ToString();
  EXPECT_EQ(cuda->status, FactStatus::kForwardError);
  EXPECT_TRUE(cuda->error.cuda_error.has_value());
  Result<Facts> crash = DecodeFacts(
      {{"status", "crash"}, {"signal", 11}, {"exit_code", nullptr}, {"phase", "trials"}});
  ASSERT_TRUE(crash.ok());
  EXPECT_EQ(crash->signal, 11);
  EXPECT_FALSE(crash->exit_code.has_value());
  EXPECT_EQ(crash->phase, "trials");
  EXPECT_EQ(crash->error.type, "error");  // No error: the defaults the verdict reads.
}

TEST(FactsGoldenTest, AWrongShapeIsAProtocolErrorNamingTheField) {
  json facts = GoldenFacts("ok_incorrect.json");
  json violations = facts;
  violations["trials"][0]["outputs"][0]["values"]["violations"] = "many";
  EXPECT_EQ(DecodeFacts(violations).status().code(), StatusCode::kProtocolError);
  EXPECT_NE(DecodeError(violations).find("facts.trials[0].outputs[0].values.violations"),
            std::string::npos)
      << DecodeError(violations);
  json passed = facts;
  passed["trials"][0]["passed"] = 1;  // A number is no boolean.
  EXPECT_NE(DecodeError(passed).find("facts.trials[0].passed"), std::string::npos);
  json worst = facts;
  worst["trials"][0]["outputs"][0]["values"]["worst"] = "index 0";
  EXPECT_NE(DecodeError(worst).find("values.worst"), std::string::npos);
  json nulls = facts;
  nulls["null_kernels"]["zeros"] = "yes";
  EXPECT_NE(DecodeError(nulls).find("facts.null_kernels.zeros"), std::string::npos);
  json launches = {{"status", "ok"}, {"launches", {{"calls", 2.5}}}};
  EXPECT_NE(DecodeError(launches).find("facts.launches.calls"), std::string::npos);
  // The top level is FactFields()'s: an undeclared fact is refused before anything nested.
  EXPECT_NE(DecodeError({{"status", "ok"}, {"speedup", 3.0}}).find("facts.speedup"),
            std::string::npos);
}

TEST(FactsGoldenTest, NullIsNoValueOnlyWhereTheShapeSaysSo) {
  json facts = GoldenFacts("ok_incorrect.json");
  facts["trials"][0]["outputs"][0]["values"]["max_abs_err"] = nullptr;  // NaN, sanitized.
  facts["trials"][0]["outputs"][0]["values"]["worst"] = nullptr;
  Result<Facts> decoded = DecodeFacts(facts);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_FALSE(decoded->trials[0].outputs[0].values.max_abs_err.has_value());
  EXPECT_FALSE(decoded->trials[0].outputs[0].values.worst.has_value());
  facts["trials"][0]["index"] = nullptr;
  EXPECT_NE(DecodeError(facts).find("facts.trials[0].index"), std::string::npos);
}

TEST(FactsGoldenTest, KeysAShapeDoesNotDeclareRideAlong) {
  json facts = GoldenFacts("ok_incorrect.json");
  facts["trials"][0]["seed"] = "a string the verdict never reads";
  EXPECT_TRUE(DecodeFacts(facts).ok());
}

// Facts' top-level fields are FactFields()'s, of the same kind (a null allowed or not).
TEST(FactsTest, TheTopLevelIsTheOneFactFieldsDeclares) {
  const std::map<std::string_view, std::string_view> declared(FactFields().begin(),
                                                              FactFields().end());
  for (const auto& [name, kind] : TEST_FactsTopLevelKinds()) {
    ASSERT_TRUE(declared.contains(name)) << name;
    const std::string fact_kind(declared.at(name));
    EXPECT_TRUE(kind == fact_kind || kind == fact_kind + "|null" || kind == "null|" + fact_kind)
        << name << ": " << kind << " vs " << fact_kind;
  }
}

}  // namespace
}  // namespace adaexplore
