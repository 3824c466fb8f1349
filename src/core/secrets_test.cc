#include "core/secrets.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace adaexplore {
namespace {

TEST(SecretsTest, RedactsKeysAndAuthorizationValues) {
  const std::string key = "sk-test-0123456789abcdef";
  std::string text = "Incorrect API key provided: " + key +
                     ". Sent Authorization: Bearer sk-other-999 and x-api-key: ant-111";
  std::string redacted = RedactSecrets(text, {key, ""});
  EXPECT_EQ(redacted.find(key), std::string::npos);
  EXPECT_EQ(redacted.find("sk-other-999"), std::string::npos);
  EXPECT_EQ(redacted.find("ant-111"), std::string::npos);
  EXPECT_NE(redacted.find("Incorrect API key provided: [redacted]"), std::string::npos);
}

TEST(SecretsTest, RecognisesCredentialVariables) {
  EXPECT_TRUE(IsCredentialVariable("OPENAI_API_KEY"));
  EXPECT_TRUE(IsCredentialVariable("HF_TOKEN"));
  EXPECT_TRUE(IsCredentialVariable("AWS_SECRET_ACCESS_KEY"));
  EXPECT_TRUE(IsCredentialVariable("my_gateway_api_key"));
  EXPECT_FALSE(IsCredentialVariable("PATH"));
  EXPECT_FALSE(IsCredentialVariable("CUDA_VISIBLE_DEVICES"));
  EXPECT_FALSE(IsCredentialVariable("OPENAI_BASE_URL"));
}

TEST(SecretsTest, OnlyAllowlistedVariablesPassToCandidates) {
  for (const char* name :
       {"PATH", "LANG", "LC_ALL", "CUDA_VISIBLE_DEVICES", "TORCH_HOME", "TRITON_CACHE_DIR",
        "PYTHONPATH", "LD_LIBRARY_PATH", "OMP_NUM_THREADS", "FLASHINFER_WORKSPACE_BASE"}) {
    EXPECT_TRUE(PassesToCandidates(name)) << name;
  }
  // Secrets under names no denylist guesses, and credentials under allowed prefixes.
  for (const char* name : {"DATABASE_URL", "GH_PAT", "DB_PASSWD", "OPENAI_API_KEY", "SSH_AUTH_SOCK",
                           "AWS_PROFILE", "TORCH_HUB_TOKEN", "PYTHON_SECRET"}) {
    EXPECT_FALSE(PassesToCandidates(name)) << name;
  }
}

TEST(SecretsTest, FindsTheVariablesWithheldFromCandidates) {
  ::setenv("ADAEXPLORE_TEST_DATABASE_URL", "postgres://x", 1);
  std::vector<std::string> names = VariablesWithheldFromCandidates();
  EXPECT_NE(std::find(names.begin(), names.end(), "ADAEXPLORE_TEST_DATABASE_URL"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "PATH"), names.end());
  ::unsetenv("ADAEXPLORE_TEST_DATABASE_URL");
}

TEST(SecretsTest, WithheldValuesAreTheLongOnesThatAreNotPaths) {
  // Read once per process: this test's variables are set before anything asks.
  ::setenv("ADAEXPLORE_TEST_DB_URL", "postgres://user:pw@db/x", 1);
  ::setenv("ADAEXPLORE_TEST_SHORT", "abc", 1);
  ::setenv("ADAEXPLORE_TEST_SOME_PATH", "/opt/some/python", 1);
  ::setenv("ADAEXPLORE_TEST_PART", "sanitizer", 1);     // A word: the facts' own key.
  ::setenv("ADAEXPLORE_TEST_PASSWORD", "sunshine", 1);  // A word, but a credential's.
  const std::vector<std::string> values = WithheldValues();
  auto has = [&](std::string_view v) {
    return std::find(values.begin(), values.end(), v) != values.end();
  };
  EXPECT_TRUE(has("postgres://user:pw@db/x"));
  EXPECT_FALSE(has("abc"));
  EXPECT_FALSE(has("/opt/some/python"));
  EXPECT_FALSE(has("sanitizer"));
  EXPECT_TRUE(has("sunshine"));
}

TEST(SecretsTest, RedactsEveryStringOfAJsonValueKeysIncluded) {
  nlohmann::json facts = {{"stderr", "key=hunter2hunter2 at line 3"},
                          {"trials", {{{"reason", "saw hunter2hunter2"}}, 7}},
                          {"hunter2hunter2", true}};
  RedactSecretsInJson(facts, {"hunter2hunter2"});
  EXPECT_EQ(facts["stderr"], "key=[redacted] at line 3");
  EXPECT_EQ(facts["trials"][0]["reason"], "saw [redacted]");
  EXPECT_EQ(facts["trials"][1], 7);
  EXPECT_TRUE(facts.contains("[redacted]"));
}

}  // namespace
}  // namespace adaexplore
