#include "task/source_file.h"

#include <gtest/gtest.h>

#include "sys/fs.h"

namespace adaexplore {
namespace {

TEST(SourceFileTest, ReadsNameAndHash) {
  Result<SourceFile> f =
      ReadSourceFile(std::string(ADAEXPLORE_SOURCE_DIR) + "/examples/tasks/relu.py");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->name, "relu");
  EXPECT_EQ(f->sha256.size(), 64u);
}

TEST(SourceFileTest, RejectsEmptyAndBinaryFiles) {
  Result<TempDir> dir = TempDir::Create("adx-src-");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(WriteFileAtomic(dir->path() + "/empty.py", "").ok());
  ASSERT_TRUE(WriteFileAtomic(dir->path() + "/bin.py", std::string("a\0b", 3)).ok());
  EXPECT_EQ(ReadSourceFile(dir->path() + "/empty.py").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadSourceFile(dir->path() + "/bin.py").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadSourceFile(dir->path() + "/missing.py").status().code(), StatusCode::kNotFound);
}

TEST(SourceFileTest, AByteThatIsNotUtf8IsAnErrorNamingWhere) {
  Result<TempDir> dir = TempDir::Create("adx-src-");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(WriteFileAtomic(dir->path() + "/latin1.py", "import torch\n# caf\xe9\n").ok());
  Result<SourceFile> f = ReadSourceFile(dir->path() + "/latin1.py");
  ASSERT_EQ(f.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(f.status().message().find("not UTF-8 (byte 0xe9 at offset 18, line 2)"),
            std::string::npos)
      << f.status().message();
}

TEST(SourceFileTest, ListsPythonFilesSorted) {
  Result<std::vector<std::string>> files =
      ListPythonFiles(std::string(ADAEXPLORE_SOURCE_DIR) + "/examples/tasks");
  ASSERT_TRUE(files.ok());
  ASSERT_GE(files->size(), 3u);
  EXPECT_TRUE(std::is_sorted(files->begin(), files->end()));
}

}  // namespace
}  // namespace adaexplore
