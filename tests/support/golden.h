#pragma once

// Golden files for tests: text a test expects a file (or a marked part of one, a documented table)
// to hold, checked, or with ADAEXPLORE_UPDATE_GOLDEN=1 in the environment written there instead,
// for review in the diff. One place decides what "updating" means for every golden test.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

namespace adaexplore::golden {

inline bool Updating() { return std::getenv("ADAEXPLORE_UPDATE_GOLDEN") != nullptr; }

inline std::string ReadText(const std::string& path) {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

// Expects the file at `path` to hold `made` exactly; `why` says what to do when it does not.
inline void ExpectFile(const std::string& path, const std::string& made, std::string_view why) {
  if (Updating()) {
    std::ofstream(path) << made;
    return;
  }
  EXPECT_EQ(ReadText(path), made) << path << " differs from what this build makes; " << why
                                  << " (ADAEXPLORE_UPDATE_GOLDEN=1 rewrites it)";
}

// Expects the text of `path` between the line starting with `begin_marker` and the next
// `end_marker` to be `made`.
inline void ExpectBlock(const std::string& path, std::string_view begin_marker,
                        std::string_view end_marker, const std::string& made) {
  std::string text = ReadText(path);
  const size_t begin = text.find(begin_marker);
  ASSERT_NE(begin, std::string::npos) << path << " lacks " << begin_marker;
  const size_t body = text.find('\n', begin) + 1;
  const size_t end = text.find(end_marker, body);
  ASSERT_NE(end, std::string::npos) << path << " lacks " << end_marker;
  if (Updating()) {
    text.replace(body, end - body, made);
    std::ofstream(path) << text;
    return;
  }
  EXPECT_EQ(text.substr(body, end - body), made)
      << path << " differs from what this build makes (ADAEXPLORE_UPDATE_GOLDEN=1 rewrites it)";
}

}  // namespace adaexplore::golden
