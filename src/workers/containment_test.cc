#include "workers/containment.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

nlohmann::json Complete() {
  nlohmann::json j = nlohmann::json::object();
  for (std::string_view name : kSandboxProtections) {
    j[std::string(name)] = true;
  }
  return j;
}

TEST(ContainmentTest, CompleteSandboxLacksNothing) {
  EXPECT_TRUE(MissingProtections(Complete()).empty());
}

TEST(ContainmentTest, NamesEachMissingProtectionWithTheWorkersReason) {
  nlohmann::json j = Complete();
  j["landlock"] = false;
  j["reasons"] = {{"landlock", "Landlock is not available in this kernel"}};
  j.erase("seccomp");
  EXPECT_EQ(
      MissingProtections(j),
      (std::vector<std::string>{"landlock: Landlock is not available in this kernel", "seccomp"}));
}

TEST(ContainmentTest, MalformedContainmentLacksEverything) {
  nlohmann::json j = Complete();
  j["pid_namespace"] = "yes";  // Only a JSON true counts.
  EXPECT_EQ(MissingProtections(j).front(), "pid_namespace");
  EXPECT_EQ(MissingProtections(nlohmann::json::array()).size(), std::size(kSandboxProtections));
  EXPECT_EQ(MissingProtections({{"off", "--no-sandbox"}}).front(),
            "pid_namespace: the sandbox is off");
}

}  // namespace
}  // namespace adaexplore
