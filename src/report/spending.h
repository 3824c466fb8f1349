#pragma once

// What a run's LLM calls bought: per model and role, the calls, tokens and cost (RunDb's totals,
// calls a kill left without their step included) beside the kernels that model wrote in that
// role, how many were correct and how many improved on their task; the cost per improved kernel;
// and per task what was spent up to its best kernel. A kernel is written by the last call of its
// step that answered (the proposer's whole kernel, the tuner's edit; the reviser only advises).
// "Improved": a correct kernel faster than every earlier kernel of its task (its first correct
// one included).
//
//   SpendingTally tally(run.model);
//   tally.AddTask("relu", steps);                         // Each task's steps (RunDb::Steps).
//   ASSIGN_OR_RETURN(RunSpending s, tally.Finish(db, run.id, run_cost));

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"
#include "store/run_db.h"

namespace adaexplore {

struct ModelRoleSpend {
  std::string model;
  std::string role;
  nlohmann::json totals;  // RunDb::CallTotals' object for these calls.
  int kernels = 0;
  int correct = 0;
  int improved = 0;
};

struct TaskSpend {
  std::string task;
  std::optional<int> best_node;  // None: no correct kernel.
  int calls_to_best = 0;         // The calls of its steps up to the best's, the best's included.
  // Their cost; none when a call among them has no price.
  std::optional<double> cost_to_best_usd;
};

struct RunSpending {
  std::vector<ModelRoleSpend> by_model_role;
  int improved = 0;
  // The run's cost over its improved kernels; none when none improved or a call has no price.
  std::optional<double> cost_per_improved_usd;
  std::vector<TaskSpend> tasks;
};

class SpendingTally {
 public:
  // `size_specific_best`: the run's setting (RunSpec); off, a kernel correct at the task's sizes
  // only does not count as an improvement of the task's best.
  explicit SpendingTally(std::string run_model, bool size_specific_best = false)
      : run_model_(std::move(run_model)), size_specific_best_(size_specific_best) {}

  void AddTask(const std::string& task, const std::vector<StepRecord>& steps);
  // The tally beside `db`'s totals of `run` by model and role; `run_cost` is RunDb::CallTotals.
  Result<RunSpending> Finish(RunDb& db, int64_t run, const nlohmann::json& run_cost) const;

 private:
  struct Kernels {
    int kernels = 0;
    int correct = 0;
    int improved = 0;
  };
  std::string run_model_;
  bool size_specific_best_ = false;
  std::map<std::pair<std::string, std::string>, Kernels> kernels_;  // By (model, role).
  std::vector<TaskSpend> tasks_;
  int improved_ = 0;
};

// A CallTotals object's cost in words: "$2.14", ">= $2.14" when some calls had no price,
// "unknown" when none had one, "-" without calls.
std::string CallCostText(const nlohmann::json& totals);
// The line a run's end prints: "LLM: 171 calls, 1248345 tokens in (789440 read from the prompt
// cache, 14147 written to it) / 34200 out, $2.14".
std::string CallTotalsLine(const nlohmann::json& totals);

nlohmann::json SpendingJson(const RunSpending& spending);
// A "## Run N spending" section: the table per model and role, then the cost per improved kernel
// and per task's best.
std::string SpendingMarkdown(int64_t run, const RunSpending& spending);

}  // namespace adaexplore
