#include "core/json_log.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace adaexplore {
namespace {

TEST(JsonLogTest, OneObjectPerRecordAtTheLevel) {
  Result<Logger> logger = MakeStderrJsonLogger("info");
  ASSERT_TRUE(logger.ok());
  testing::internal::CaptureStderr();
  (*logger)->info("workers: {} x {}", 1, "cpu");
  (*logger)->warn("a \"quoted\" word");
  (*logger)->debug("below the level");
  const std::string out = testing::internal::GetCapturedStderr();
  std::vector<nlohmann::json> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(nlohmann::json::parse(line));  // Throws, failing the test, if not JSON.
  }
  ASSERT_EQ(lines.size(), 2u) << out;
  EXPECT_EQ(lines[0],
            (nlohmann::json{{"event", "log"}, {"level", "info"}, {"message", "workers: 1 x cpu"}}));
  EXPECT_EQ(lines[1]["level"], "warning");
  EXPECT_EQ(lines[1]["message"], "a \"quoted\" word");
}

TEST(JsonLogTest, UnknownLevelsAreErrors) {
  EXPECT_FALSE(MakeStderrJsonLogger("loud").ok());
  EXPECT_TRUE(MakeCommandLogger("off", /*json=*/true).ok());
}

}  // namespace
}  // namespace adaexplore
