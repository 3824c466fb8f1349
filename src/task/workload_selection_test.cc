#include "task/workload_selection.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

SourceFile Definition(int workloads) {
  SourceFile task{.name = "rmsnorm_h64"};
  for (int i = 1; i <= workloads; ++i) {
    task.workloads.push_back({{"uuid", "w" + std::to_string(i)}, {"axes", {{"M", i}}}});
  }
  return task;
}

std::vector<std::string> Uuids(const SourceFile& task) {
  std::vector<std::string> out;
  for (const nlohmann::json& w : task.workloads) {
    out.push_back(w["uuid"].get<std::string>());
  }
  return out;
}

TEST(WorkloadSelectionTest, FirstNARangeOrUuidsAndPositions) {
  for (const auto& [spec, want] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"", {"w1", "w2", "w3", "w4", "w5"}},
           {"2", {"w1", "w2"}},
           {"9", {"w1", "w2", "w3", "w4", "w5"}},  // More than there are: all of them.
           {"2-4", {"w2", "w3", "w4"}},
           {"4-9", {"w4", "w5"}},
           {"w5,w2", {"w2", "w5"}},  // In the definition's order.
           {"w3,1", {"w1", "w3"}}}) {
    SourceFile task = Definition(5);
    ASSERT_TRUE(SelectWorkloads(spec, task).ok()) << spec;
    EXPECT_EQ(Uuids(task), want) << spec;
  }
}

TEST(WorkloadSelectionTest, ASelectionOfNothingOrOfAnUnknownWorkloadIsAnError) {
  for (const auto& [spec, words] : std::vector<std::pair<std::string, std::string>>{
           {"0", "selects none of rmsnorm_h64's 5 workload(s)"},
           {"3-2", "a range runs from 1 upwards"},
           {"w9",
            "rmsnorm_h64 has no workload 'w9' (its 5 workload(s): positions 1-5, uuids w1, "
            "w2, w3, w4, w5)"},
           {"6", "selects none"}}) {
    SourceFile task = Definition(5);
    if (spec == "6") {  // A first-N beyond the count keeps all; a position beyond it is an error.
      EXPECT_TRUE(SelectWorkloads(spec, task).ok());
      continue;
    }
    const Status s = SelectWorkloads(spec, task);
    ASSERT_FALSE(s.ok()) << spec;
    EXPECT_NE(s.message().find(words), std::string::npos) << s.message();
  }
  // Not a definition: nothing to select.
  SourceFile plain{.name = "19_ReLU"};
  EXPECT_TRUE(SelectWorkloads("2", plain).ok());
}

TEST(WorkloadSelectionTest, ASelectionKeepsTwoLeftOutWorkloadsAtOtherAxesForTheChecks) {
  SourceFile task = Definition(5);
  ASSERT_TRUE(SelectWorkloads("2", task).ok());
  ASSERT_EQ(task.check_workloads.size(), 2u);  // The smallest left out, and the median one.
  EXPECT_EQ(task.check_workloads[0]["uuid"], "w3");
  EXPECT_EQ(task.check_workloads[1]["uuid"], "w4");
  // All of them kept: nothing left out to check.
  SourceFile all = Definition(5);
  ASSERT_TRUE(SelectWorkloads("", all).ok());
  EXPECT_TRUE(all.check_workloads.empty());
}

TEST(WorkloadSelectionTest, LeftOutWorkloadsAtAxesAKeptOneHasAreNoCheck) {
  const std::vector<nlohmann::json> kept = {{{"uuid", "a"}, {"axes", {{"M", 7}, {"N", 64}}}}};
  const std::vector<nlohmann::json> left_out = {
      {{"uuid", "b"}, {"axes", {{"M", 7}, {"N", 64}}}},  // The kept one's axes, other data.
      {{"uuid", "c"}, {"axes", {{"M", 900}, {"N", 64}}}},
      {{"uuid", "d"}, {"axes", {{"M", 900}, {"N", 64}}}},  // Axes already chosen.
      {{"uuid", "e"}, {"axes", {{"M", 3}, {"N", 64}}}}};
  const std::vector<nlohmann::json> chosen = CheckWorkloads(kept, left_out);
  ASSERT_EQ(chosen.size(), 2u);
  EXPECT_EQ(chosen[0]["uuid"], "e");
  EXPECT_EQ(chosen[1]["uuid"], "c");
  EXPECT_TRUE(CheckWorkloads(kept, {left_out[0]}).empty());
}

}  // namespace
}  // namespace adaexplore
