#include "search/sol_budget.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

TEST(SolBudgetTest, OffKeepsThePapersProtocol) {
  const std::vector<TaskBudget> tasks = {{.steps_done = 10, .best_sol = 0.99},
                                         {.steps_done = 10, .best_sol = 0.1}};
  EXPECT_FALSE(ReachedSol(tasks[0], 0));
  EXPECT_EQ(SpareSteps(tasks, 10, 0), 0);
  EXPECT_FALSE(NextSpareStep(tasks, 10, 0));
  EXPECT_TRUE(MayStartOwnStep({.steps_done = 3, .best_sol = 0.99}, 10, 0));
}

TEST(SolBudgetTest, ATaskThatReachesTheFractionStopsAndItsStepsGoToTheFurthest) {
  // Three tasks of 10 steps: a reached 0.85 of the speed of light after 4 steps.
  std::vector<TaskBudget> tasks = {{.steps_done = 4, .best_sol = 0.85},
                                   {.steps_done = 10, .best_sol = 0.5},
                                   {.steps_done = 10, .best_sol = 0.2}};
  EXPECT_TRUE(ReachedSol(tasks[0], 0.8));
  EXPECT_FALSE(MayStartOwnStep(tasks[0], 10, 0.8));
  EXPECT_EQ(SpareSteps(tasks, 10, 0.8), 6);
  EXPECT_EQ(NextSpareStep(tasks, 10, 0.8), 2u);  // The furthest from the speed of light.
  tasks[2].in_flight = 1;                        // It takes the step: one fewer is spare.
  EXPECT_EQ(SpareSteps(tasks, 10, 0.8), 5);
  EXPECT_EQ(NextSpareStep(tasks, 10, 0.8), 1u);  // The other one gets the next.
  tasks[2] = {.steps_done = 15, .best_sol = 0.3};
  tasks[1] = {.steps_done = 11, .best_sol = 0.5};
  EXPECT_EQ(SpareSteps(tasks, 10, 0.8), 0);  // 6 spare, 6 taken: the run's total is kept.
  EXPECT_FALSE(NextSpareStep(tasks, 10, 0.8));
}

TEST(SolBudgetTest, OnlyTasksDoneWithTheirOwnStepsAndNotBrokenTakeSpareOnes) {
  const std::vector<TaskBudget> tasks = {{.steps_done = 2, .best_sol = 0.9},
                                         {.steps_done = 5},  // Still has its own steps.
                                         {.steps_done = 10, .broken = true},
                                         {.steps_done = 10, .best_sol = 0.4},
                                         {.steps_done = 10}};  // No correct kernel: furthest.
  EXPECT_EQ(SpareSteps(tasks, 10, 0.8), 8);
  EXPECT_EQ(NextSpareStep(tasks, 10, 0.8), 4u);
  EXPECT_TRUE(MayStartOwnStep(tasks[1], 10, 0.8));
  EXPECT_FALSE(MayStartOwnStep(tasks[2], 10, 0.8));
}

TEST(SolBudgetTest, SeveralStepsInFlightFillTheLimitButNeverPassTheBudget) {
  EXPECT_TRUE(MayStartOwnStep({.steps_done = 3, .in_flight = 2, .max_in_flight = 3}, 10, 0));
  EXPECT_FALSE(MayStartOwnStep({.steps_done = 3, .in_flight = 3, .max_in_flight = 3}, 10, 0));
  // Done and running together reach the budget: the last steps are already in flight.
  EXPECT_FALSE(MayStartOwnStep({.steps_done = 8, .in_flight = 2, .max_in_flight = 3}, 10, 0));
  EXPECT_FALSE(MayStartOwnStep({.steps_done = 3, .in_flight = 1}, 10, 0));  // One at a time.
  // Spare steps count the running ones as taken.
  const std::vector<TaskBudget> tasks = {{.steps_done = 2, .best_sol = 0.9},
                                         {.steps_done = 10, .in_flight = 2, .max_in_flight = 4}};
  EXPECT_EQ(SpareSteps(tasks, 10, 0.8), 6);
  EXPECT_EQ(NextSpareStep(tasks, 10, 0.8), 1u);
}

}  // namespace
}  // namespace adaexplore
