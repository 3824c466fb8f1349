#include "llm/recording.h"

#include <gtest/gtest.h>

#include <fstream>

#include "sys/fs.h"

namespace adaexplore {
namespace {

ChatRequest Request(std::string prompt, int64_t sample = 0) {
  return ChatRequest{.model = {"openai", "gpt-5-mini"},
                     .messages = {{"user", std::move(prompt)}},
                     .sample = sample,
                     .role = LlmRole::kTuner,
                     .task = "t"};
}

TEST(RecordingTest, ContentKeyIgnoresTheModelCacheKeyDoesNot) {
  ProviderSettings settings{.name = "openai", .base_url = "http://x"};
  ChatRequest a = Request("p");
  ChatRequest b = a;
  b.model.model = "other-model";
  EXPECT_EQ(ContentKey(a), ContentKey(b));
  EXPECT_NE(CacheKey(a, settings), CacheKey(b, settings));
  ChatRequest warmer = a;
  warmer.temperature = 1.0;
  EXPECT_NE(CacheKey(a, settings), CacheKey(warmer, settings));
  EXPECT_NE(ContentKey(a), ContentKey(Request("p", 1)));  // Samples stay apart.
  EXPECT_NE(ContentKey(a), ContentKey(Request("q")));
}

TEST(RecordingTest, WritesAndReplaysInOrderSkippingATornLine) {
  TempDir dir = *TempDir::Create("recording");
  const std::string path = dir.path() + "/r.jsonl";
  {
    auto writer = RecordingWriter::Open(path);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Append(Request("p"), {.text = "first", .usage = {.input = 3}}).ok());
    ASSERT_TRUE((*writer)->Append(Request("p"), {.text = "second"}).ok());
    ASSERT_TRUE((*writer)->Append(Request("q"), {.text = "other"}).ok());
  }
  {
    std::ofstream torn(path, std::ios::app);
    torn << R"({"key": "abc", "reply": {"te)";  // A run killed mid-write.
  }
  auto book = ReplayBook::Load(path);
  ASSERT_TRUE(book.ok()) << book.status().ToString();
  EXPECT_EQ((*book)->size(), 2u);
  EXPECT_EQ((*book)->skipped_lines(), 1u);
  ChatRequest replayed = Request("p");
  replayed.model = {"replay", path};
  EXPECT_EQ((*book)->Next(replayed)->text, "first");
  EXPECT_EQ((*book)->Next(replayed)->usage.input, 0);  // "second" carries no usage.
  EXPECT_EQ((*book)->Next(replayed)->text, "second");  // The last reply repeats.
  EXPECT_EQ((*book)->Next(Request("q"))->text, "other");
  // Another prompt for the same task, role and sample (other timings shown to the model): the
  // reply recorded in that slot.
  ChatRequest other_prompt = Request("q, with other figures");
  EXPECT_EQ((*book)->Next(other_prompt)->text, "first");
  // Another sample of the same task and role: the next reply recorded for them.
  EXPECT_EQ((*book)->Next(Request("never asked", 7))->text, "first");
  ChatRequest other_task = Request("never asked");
  other_task.task = "another task";
  Result<ChatReply> missing = (*book)->Next(other_task);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("not in the recording"), std::string::npos);
  EXPECT_NE(missing.status().message().find("never asked"), std::string::npos);
}

TEST(RecordingTest, AFileWithoutUsableLinesIsAnError) {
  TempDir dir = *TempDir::Create("recording");
  const std::string path = dir.path() + "/bad.jsonl";
  ASSERT_TRUE(WriteFileAtomic(path, "not json\n{\"key\": 1}\n").ok());
  Result<std::unique_ptr<ReplayBook>> book = ReplayBook::Load(path);
  ASSERT_FALSE(book.ok());
  EXPECT_NE(book.status().message().find("no usable"), std::string::npos);
  EXPECT_FALSE(ReplayBook::Load(dir.path() + "/absent.jsonl").ok());
}

}  // namespace
}  // namespace adaexplore
