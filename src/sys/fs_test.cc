#include "sys/fs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

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

}  // namespace
}  // namespace adaexplore
