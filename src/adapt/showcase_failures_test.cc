// The failures of the reference run's ten released search trees (../shared/data/adaexplore-
// release/showcase; skipped when absent): how many compile and runtime errors there are, how many
// signatures and clusters they make, and so how many rule-writer calls our pipeline needs against
// the reference's one per failure.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "adapt/failures.h"
#include "shared_data.h"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

TEST(ShowcaseFailuresTest, SignaturesCutTheRuleWriterCalls) {
  const fs::path dir = test_data::ShowcaseDirectory();
  if (!fs::exists(dir)) {
    GTEST_SKIP() << "no " << dir;
  }
  std::vector<Failure> failures;
  int mismatches = 0;
  std::set<std::string> distinct_texts;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("kb-", 0) != 0) {
      continue;
    }
    std::ifstream in(entry.path());
    const nlohmann::json tree = nlohmann::json::parse(in);
    for (const nlohmann::json& step : tree["steps"]) {
      if (!step["error"].is_string()) {
        continue;
      }
      const std::string error = step["error"].get<std::string>();
      if (error == "incorrect output") {  // A numerical mismatch: not distilled by default.
        ++mismatches;
        continue;
      }
      distinct_texts.insert(error);
      failures.push_back({.task = entry.path().stem().string(),
                          .error = error,
                          .kernel = step["code"].is_string() ? step["code"].get<std::string>() : "",
                          .source = entry.path().filename().string()});
    }
  }
  const size_t count = failures.size();
  const std::vector<FailureCluster> clusters = ClusterFailures(std::move(failures));
  size_t biggest = 0, singletons = 0;
  std::set<std::string> tasks_of_biggest;
  for (const FailureCluster& c : clusters) {
    biggest = std::max(biggest, c.failures.size());
    singletons += c.failures.size() == 1;
  }
  std::printf(
      "showcase: %zu compile/runtime failures (%d mismatches left out), %zu distinct "
      "texts, %zu signatures (%zu seen once, largest %zu): %zu rule-writer calls instead "
      "of %zu\n",
      count, mismatches, distinct_texts.size(), clusters.size(), singletons, biggest,
      clusters.size(), count);
  std::vector<const FailureCluster*> by_size;
  for (const FailureCluster& c : clusters) {
    by_size.push_back(&c);
  }
  std::stable_sort(by_size.begin(), by_size.end(), [](const auto* a, const auto* b) {
    return a->failures.size() > b->failures.size();
  });
  for (size_t i = 0; i < 5 && i < by_size.size(); ++i) {
    std::printf("  %3zu x %s\n", by_size[i]->failures.size(), by_size[i]->signature.c_str());
  }
  EXPECT_EQ(mismatches, 69);
  EXPECT_EQ(count, 503u);
  EXPECT_EQ(distinct_texts.size(), 161u);
  // 119 failures kept only "CompilationError: ^" (the reference's log lost the message): each is
  // its own cluster. The other 384 make 100 clusters.
  EXPECT_EQ(clusters.size(), 219u);
  EXPECT_EQ(biggest, 87u);  // TypeError("'dtype' object is not callable"): tl.float32(x).
}

}  // namespace
}  // namespace adaexplore
