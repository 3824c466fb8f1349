#include "sys/line_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "sys/unique_fd.h"

namespace adaexplore {
namespace {

TEST(LineReaderTest, SplitsAcrossChunks) {
  LineReader reader;
  std::vector<std::string> lines;
  ASSERT_TRUE(reader.Feed("ab", lines).ok());
  ASSERT_TRUE(reader.Feed("c\nde\n\nf", lines).ok());
  EXPECT_EQ(lines, (std::vector<std::string>{"abc", "de", ""}));
  EXPECT_EQ(reader.partial(), "f");
}

TEST(LineReaderTest, OverlongLineIsAProtocolError) {
  LineReader reader(4);
  std::vector<std::string> lines;
  EXPECT_EQ(reader.Feed("abcdef", lines).code(), StatusCode::kProtocolError);
}

TEST(LineReaderTest, ReadsUntilEof) {
  Result<std::pair<UniqueFd, UniqueFd>> pair = SocketPair();
  ASSERT_TRUE(pair.ok());
  ASSERT_TRUE(SetNonBlocking(pair->first.get()).ok());
  ASSERT_TRUE(SendAll(pair->second.get(), "x\ny", 1000).ok());
  LineReader reader;
  std::vector<std::string> lines;
  EXPECT_EQ(*reader.ReadAvailable(pair->first.get(), lines), LineReader::State::kOpen);
  EXPECT_EQ(lines, std::vector<std::string>{"x"});
  pair->second.Reset();
  EXPECT_EQ(*reader.ReadAvailable(pair->first.get(), lines), LineReader::State::kEof);
  EXPECT_EQ(reader.partial(), "y");
}

TEST(LineReaderTest, SendToClosedPeerFailsWithoutSigpipe) {
  Result<std::pair<UniqueFd, UniqueFd>> pair = SocketPair();
  ASSERT_TRUE(pair.ok());
  pair->first.Reset();
  EXPECT_FALSE(SendAll(pair->second.get(), "x\n", 100).ok());
}

}  // namespace
}  // namespace adaexplore
