#include "ui/status_line.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace adaexplore {
namespace {

std::string Captured(FILE* file) {
  (void)std::fflush(file);
  std::rewind(file);
  std::string out;
  char buffer[256];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0) {
    out.append(buffer, n);
  }
  return out;
}

TEST(StatusLineTest, ADumbStreamGetsPlainLinesOnly) {
  FILE* file = std::tmpfile();
  {
    StatusLine line(file, /*smart=*/false);
    line.SetStatus("[relu 1/5]");
    line.Message("[relu] step 1/5 large_step -> correct");
    line.SetStatus("[relu 2/5]");
  }
  EXPECT_EQ(Captured(file), "[relu] step 1/5 large_step -> correct\n");
  (void)std::fclose(file);
}

TEST(StatusLineTest, JsonGivesOneObjectPerMessageAndStatus) {
  FILE* file = std::tmpfile();
  {
    StatusLine line(file, StatusLine::Format::kJson);
    EXPECT_FALSE(line.smart());
    line.SetStatus("1/5 steps", {{"done", 1}, {"total", 5}});
    line.SetStatus("1/5 steps", {{"done", 1}, {"total", 5}});  // Not again.
    line.Message("[relu] step 2/5 large_step -> correct", {{"event", "step"}, {"step", 2}});
    line.Message("no GPU");
    line.SetStatus("");  // Taking the line down prints nothing.
  }
  EXPECT_EQ(Captured(file),
            "{\"done\":1,\"event\":\"progress\",\"status\":\"1/5 steps\",\"total\":5}\n"
            "{\"event\":\"step\",\"message\":\"[relu] step 2/5 large_step -> correct\","
            "\"step\":2}\n"
            "{\"event\":\"message\",\"message\":\"no GPU\"}\n");
  (void)std::fclose(file);
}

TEST(StatusLineTest, ASmartTerminalOverprintsTheStatusBelowTheMessages) {
  FILE* file = std::tmpfile();
  {
    StatusLine line(file, /*smart=*/true);
    line.SetStatus("[relu 1/5]");
    line.Message("step 1 done");
    line.SetStatus("[relu 2/5]");
  }
  EXPECT_EQ(Captured(file),
            "[relu 1/5]"             // First status.
            "\r\x1b[Kstep 1 done\n"  // Cleared, message printed,
            "[relu 1/5]"             // status redrawn below it,
            "\r\x1b[K[relu 2/5]"     // then replaced,
            "\r\x1b[K");             // and cleared at the end.
  (void)std::fclose(file);
}

TEST(StatusLineTest, DecidesFromTheEnvironment) {
  FILE* file = std::tmpfile();  // Not a terminal.
  ::setenv("TERM", "xterm", 1);
  ::unsetenv("CLICOLOR_FORCE");
  EXPECT_FALSE(StatusLine(file).smart());
  ::setenv("CLICOLOR_FORCE", "1", 1);
  EXPECT_TRUE(StatusLine(file).smart());
  ::setenv("TERM", "dumb", 1);
  ::setenv("CLICOLOR_FORCE", "0", 1);
  EXPECT_FALSE(StatusLine(file).smart());
  ::unsetenv("CLICOLOR_FORCE");
  (void)std::fclose(file);
}

}  // namespace
}  // namespace adaexplore
