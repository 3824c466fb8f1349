#include "app/run_database.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "sys/fs.h"

namespace adaexplore {
namespace {

// A second command on a database in use is refused at once, naming the database; the first
// command's lock file goes with its database when it records nothing.
TEST(RunDatabaseTest, ASecondCommandOnTheDatabaseIsRefusedAndNothingIsLeftBehind) {
  Result<TempDir> dir = TempDir::Create("adaexplore-run-database-");
  ASSERT_TRUE(dir.ok());
  const std::string db = dir->path() + "/runs.sqlite";
  {
    NewFileGuard created(db);
    Result<FileLock> first = LockRunDatabase(db, created);
    ASSERT_TRUE(first.ok()) << first.status().message();
    NewFileGuard again(db);
    Result<FileLock> second = LockRunDatabase(db, again);
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
    EXPECT_NE(second.status().message().find("the run database " + db + " is in use"),
              std::string::npos)
        << second.status().message();
    EXPECT_TRUE(std::filesystem::exists(db + ".lock"));
  }
  EXPECT_FALSE(std::filesystem::exists(db + ".lock"));
}

}  // namespace
}  // namespace adaexplore
