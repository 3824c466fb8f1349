#include "sys/process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <thread>

#include "sys/fs.h"
#include "sys/unique_fd.h"

namespace adaexplore {
namespace {

bool Alive(pid_t pid) { return ::kill(pid, 0) == 0; }

TEST(ProcessTest, ReportsExitCode) {
  Result<Process> p = Process::Spawn({.argv = {"/bin/sh", "-c", "exit 3"}});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_TRUE(p->Wait(Seconds(10)));
  EXPECT_EQ(p->exit_status()->code, 3);
  EXPECT_EQ(p->exit_status()->ToString(), "exit code 3");
}

TEST(ProcessTest, ReportsSignalDeath) {
  Result<Process> p = Process::Spawn({.argv = {"/bin/sh", "-c", "kill -SEGV $$"}});
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE(p->Wait(Seconds(10)));
  EXPECT_EQ(p->exit_status()->signal, SIGSEGV);
  EXPECT_EQ(p->exit_status()->ToString(), "killed by SIGSEGV");
}

TEST(ProcessTest, MissingProgramIsAnError) {
  Result<Process> p = Process::Spawn({.argv = {"/nonexistent/program"}});
  EXPECT_FALSE(p.ok());
}

TEST(ProcessTest, TerminateKillsTheWholeGroupIncludingTermIgnoringGrandchildren) {
  Result<TempDir> dir = TempDir::Create("adx-proc-");
  ASSERT_TRUE(dir.ok());
  const std::string pid_file = dir->path() + "/grandchild.pid";
  // The grandchild ignores SIGTERM and would outlive a plain kill of the leader.
  Result<Process> p = Process::Spawn(
      {.argv = {"/bin/sh", "-c",
                "sh -c 'trap \"\" TERM; echo $$ > " + pid_file + "; exec sleep 1000' & wait"}});
  ASSERT_TRUE(p.ok());
  pid_t grandchild = -1;
  for (int i = 0; i < 500 && grandchild <= 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    Result<std::string> text = ReadFile(pid_file);
    if (text.ok() && !text->empty()) {
      grandchild = std::stoi(*text);
    }
  }
  ASSERT_GT(grandchild, 0);
  p->Terminate(Seconds(0.2));
  // The grandchild is not our child, so it is reaped by init; wait for it to disappear.
  for (int i = 0; i < 200 && Alive(grandchild); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_FALSE(Alive(grandchild));
}

TEST(ProcessTest, MapsFdsAndEnvironment) {
  Result<std::pair<UniqueFd, UniqueFd>> pair = SocketPair();
  ASSERT_TRUE(pair.ok());
  Result<Process> p = Process::Spawn({.argv = {"/bin/sh", "-c", "echo \"$ADX_X\" >&3"},
                                      .env_set = {{"ADX_X", "hello"}},
                                      .fd_map = {{pair->second.get(), 3}}});
  ASSERT_TRUE(p.ok());
  pair->second.Reset();
  char buffer[16] = {};
  const ssize_t n = ::read(pair->first.get(), buffer, sizeof(buffer));
  EXPECT_EQ(std::string(buffer, n > 0 ? static_cast<size_t>(n) : 0), "hello\n");
}

TEST(ProcessTest, DestructorKillsARunningChild) {
  pid_t pid = -1;
  {
    Result<Process> p = Process::Spawn({.argv = {"/bin/sleep", "1000"}});
    ASSERT_TRUE(p.ok());
    pid = p->pid();
    EXPECT_TRUE(Alive(pid));
  }
  EXPECT_FALSE(Alive(pid));
}

}  // namespace
}  // namespace adaexplore
