#include "sys/new_file_guard.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "sys/fs.h"

namespace adaexplore {
namespace {

TEST(NewFileGuardTest, AFileTheCommandCreatedGoesUnlessKept) {
  Result<TempDir> dir = TempDir::Create("adx-guard-");
  ASSERT_TRUE(dir.ok());
  const std::string db = dir->path() + "/run.sqlite";
  {
    NewFileGuard guard(db);
    ASSERT_TRUE(WriteFileAtomic(db, "x").ok());
    ASSERT_TRUE(WriteFileAtomic(db + "-wal", "x").ok());
    ASSERT_TRUE(WriteFileAtomic(db + ".lock", "x").ok());
    guard.Also(db + ".lock");
  }
  EXPECT_FALSE(std::filesystem::exists(db));
  EXPECT_FALSE(std::filesystem::exists(db + "-wal"));
  EXPECT_FALSE(std::filesystem::exists(db + ".lock"));
  {
    NewFileGuard guard(db);
    ASSERT_TRUE(WriteFileAtomic(db, "x").ok());
    guard.Keep();
  }
  EXPECT_TRUE(std::filesystem::exists(db));
  {
    NewFileGuard guard(db);  // It existed before: never removed.
  }
  EXPECT_TRUE(std::filesystem::exists(db));
}

}  // namespace
}  // namespace adaexplore
