#include "store/result_cache.h"

#include <gtest/gtest.h>

#include "sys/fs.h"

namespace adaexplore {
namespace {

TEST(ResultCacheTest, StoresAndFindsByKey) {
  Result<TempDir> dir = TempDir::Create("adx-cache-");
  ASSERT_TRUE(dir.ok());
  Result<ResultCache> cache = ResultCache::Open(dir->path() + "/sub/cache.sqlite");
  ASSERT_TRUE(cache.ok()) << cache.status().ToString();
  EXPECT_FALSE(cache->Find("k1")->has_value());
  ASSERT_TRUE(cache->Store("k1", "correct", {{"verdict", "correct"}, {"speedup", 2.5}}).ok());
  Result<std::optional<nlohmann::json>> found = cache->Find("k1");
  ASSERT_TRUE(found.ok());
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((**found)["speedup"], 2.5);
}

TEST(ResultCacheTest, BaselinesAreKeptApartFromResults) {
  Result<TempDir> dir = TempDir::Create("adx-cache-");
  ASSERT_TRUE(dir.ok());
  Result<ResultCache> cache = ResultCache::Open(dir->path() + "/cache.sqlite");
  ASSERT_TRUE(cache.ok());
  ASSERT_TRUE(cache->StoreBaseline("k", {{"eager_ms", 1.5}}).ok());
  EXPECT_FALSE(cache->Find("k")->has_value());
  Result<std::optional<nlohmann::json>> found = cache->FindBaseline("k");
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((**found)["eager_ms"], 1.5);
  ASSERT_TRUE(cache->StoreBaseline("k", {{"eager_ms", 2.0}}).ok());  // Re-measured: replaced.
  EXPECT_EQ((**cache->FindBaseline("k"))["eager_ms"], 2.0);
}

TEST(ResultCacheTest, SurvivesReopen) {
  Result<TempDir> dir = TempDir::Create("adx-cache-");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir->path() + "/cache.sqlite";
  {
    Result<ResultCache> cache = ResultCache::Open(path);
    ASSERT_TRUE(cache.ok());
    ASSERT_TRUE(cache->Store("k", "incorrect", {{"verdict", "incorrect"}}).ok());
  }
  Result<ResultCache> again = ResultCache::Open(path);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->Find("k")->has_value());
}

TEST(ResultCacheTest, RefusesAnotherSchemaVersion) {
  Result<TempDir> dir = TempDir::Create("adx-cache-");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir->path() + "/cache.sqlite";
  {
    Result<Db> db = Db::Open(path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->Execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                            "INSERT INTO meta VALUES ('schema', '99');")
                    .ok());
  }
  EXPECT_EQ(ResultCache::Open(path).status().code(), StatusCode::kInvalidArgument);
}

TEST(ResultCacheTest, UnwritableLocationIsAnError) {
  EXPECT_FALSE(ResultCache::Open("/proc/nope/cache.sqlite").ok());
}

}  // namespace
}  // namespace adaexplore
