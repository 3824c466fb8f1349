#include "sys/fs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

namespace adaexplore {
namespace {

TEST(FsTest, AtomicWriteThenRead) {
  Result<TempDir> dir = TempDir::Create("adx-fs-");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir->path() + "/a.txt";
  ASSERT_TRUE(WriteFileAtomic(path, "one").ok());
  ASSERT_TRUE(WriteFileAtomic(path, "two").ok());
  EXPECT_EQ(*ReadFile(path), "two");
  // No temp files are left beside it.
  int entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir->path())) {
    ++entries;
  }
  EXPECT_EQ(entries, 1);
  // Written files get the usual mode for the umask, not mkstemp's private 0600.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666u & ~mask);
}

TEST(FsTest, MissingFileIsNotFound) {
  EXPECT_EQ(ReadFile("/nonexistent/x").status().code(), StatusCode::kNotFound);
}

TEST(FsTest, TempDirIsRemoved) {
  std::string path;
  {
    Result<TempDir> dir = TempDir::Create("adx-fs-");
    ASSERT_TRUE(dir.ok());
    path = dir->path();
    ASSERT_TRUE(MakeDirectories(path + "/a/b").ok());
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(FsTest, TheScratchOfAKilledProcessIsRemovedAtTheNextStartUnlessKept) {
  // Two processes that die without cleaning up (as SIGKILL leaves them): one folder plain, one
  // released for its logs. A unique prefix keeps other tests' folders out of it.
  const std::string prefix = "adx-dead-" + std::to_string(::getpid()) + "-";
  std::string paths[2];
  for (int kept = 0; kept < 2; ++kept) {
    int pipe_fds[2];
    ASSERT_EQ(::pipe(pipe_fds), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      Result<TempDir> dir = TempDir::Create(prefix);
      if (!dir.ok()) {
        ::_exit(1);
      }
      const std::string path = dir->path();
      if (kept == 1) {
        dir->Release();
      }
      (void)::write(pipe_fds[1], path.data(), path.size());
      ::_exit(0);  // No destructors: the folder stays, as after SIGKILL.
    }
    ::close(pipe_fds[1]);
    char buffer[512] = {};
    const ssize_t n = ::read(pipe_fds[0], buffer, sizeof(buffer) - 1);
    ::close(pipe_fds[0]);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_GT(n, 0);
    paths[kept] = std::string(buffer, static_cast<size_t>(n));
    ASSERT_TRUE(std::filesystem::exists(paths[kept]));
  }
  Result<TempDir> mine = TempDir::Create(prefix);
  ASSERT_TRUE(mine.ok());
  EXPECT_FALSE(std::filesystem::exists(paths[0]));  // Its process is gone.
  EXPECT_TRUE(std::filesystem::exists(paths[1]));   // Released: kept for its logs.
  EXPECT_TRUE(std::filesystem::exists(mine->path()));
  std::filesystem::remove_all(paths[1]);
}

}  // namespace
}  // namespace adaexplore
