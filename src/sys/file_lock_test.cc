#include "sys/file_lock.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/fs.h"

namespace adaexplore {
namespace {

TEST(FileLockTest, OneHolderAtATimeAndTheOtherIsToldWho) {
  Result<TempDir> dir = TempDir::Create("adx-lock-");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir->path() + "/run.sqlite.lock";
  {
    Result<FileLock> held = FileLock::TryAcquire(path);
    ASSERT_TRUE(held.ok()) << held.status().ToString();
    // flock is per open file: a second open in this process is refused like another process.
    Result<FileLock> second = FileLock::TryAcquire(path);
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
    EXPECT_NE(second.status().message().find("pid " + std::to_string(::getpid())),
              std::string::npos)
        << second.status().message();
  }
  EXPECT_TRUE(FileLock::TryAcquire(path).ok());  // Released with its holder.
}

TEST(FileLockTest, ADeadHolderLeavesNoLock) {
  Result<TempDir> dir = TempDir::Create("adx-lock-");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir->path() + "/db.lock";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Result<FileLock> held = FileLock::TryAcquire(path);
    ::_exit(held.ok() ? 0 : 1);  // Dies holding it.
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_TRUE(FileLock::TryAcquire(path).ok());
}

}  // namespace
}  // namespace adaexplore
