#pragma once

// The state SearchRunner keeps per task and per step in flight (search/runner.h's private
// SearchRunner::Task and SearchRunner::Step), shared by the files that implement it: runner.cc
// (the loop, resume, planning, evaluation and records) and runner_replies.cc (what each LLM
// reply becomes). Internal to the search_runner library.

#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "search/runner.h"

namespace adaexplore {

// The step a task is taking (outside Task: clang cannot default-construct a nested struct with
// member initializers inside the optional of its enclosing class).
struct TaskStep {
  StepPlan plan;
  int attempt = 0;  // 1 once the other kind of move is being tried.
  std::mt19937_64 random;
  std::vector<CallRecord> calls;
  std::vector<ChatMessage> pending_messages;
  std::string guidance;
  std::string edit_feedback;
  std::optional<std::pair<int, std::string>> failed_edits;  // (parent, feedback) this step.
  std::string kernel;                                       // Being evaluated.
  std::optional<EvalResult> first;  // With confirm_best: the measurement being confirmed.
  bool sanitizing = false;          // With sanitize_best: the final result is being sanitized.
  bool seed = false;                // The user's seed kernel (run --seed-kernel), not an LLM's.
  int number = 0;                   // Its draw index: (seed, task, number) seeds `random`.
  int seen = 0;                     // Nodes the tree had when it was planned.
  std::vector<std::pair<int, PendingStep>> in_flight;  // The task's other steps then, by number.
  // The nodes (or, negated, steps in flight) whose kernels this step's LLM replies repeated; each
  // repeat is asked again once, with a note (SearchRunner::OnRepeat).
  std::vector<int> repeats;
};

struct SearchRunner::Step : TaskStep {};

struct SearchRunner::Task {
  SourceFile source;
  SearchTree tree;
  std::vector<std::string> kernels = {""};   // By node id; the root has none.
  std::vector<KernelRecord> records = {{}};  // By node id, as prompts show them.
  std::optional<double> best_sol;  // The highest speed-of-light fraction of its correct kernels.
  std::vector<std::string> edit_feedback = {""};  // By node id: edits that did not apply.
  // By node id: the latest tuner reply whose edits to that node's kernel all failed, worded for
  // the next tuner that edits it (kept until edits to it apply).
  std::map<int, std::string> failed_edits;
  std::map<std::string, int> verdicts;
  int steps_done = 0;
  bool broken = false;  // The task itself failed (task_error): it takes no more steps.

  std::optional<TaskRoofline> roofline;  // The latest measured, for the proposer.
  std::map<int, Step> steps;             // In flight, by number.
  std::set<int> recorded;                // The numbers of its recorded steps.

  // The next node's record, as prompts show it; keeps best_sol, which a kernel the run does not
  // let be its best (NodeOutcome::Barred) does not raise.
  void AddRecord(KernelRecord record, bool barred = false) {
    if (record.verdict == VerdictName(Verdict::kCorrect) && record.sol_fraction && !barred) {
      best_sol = std::max(best_sol.value_or(0), *record.sol_fraction);
    }
    records.push_back(std::move(record));
  }
};

// What the tuner editing `parent` is told about earlier edits: those skipped when the parent
// was made, and those of an earlier reply that all failed on it. (A template: the task's type
// is SearchRunner's private one.)
inline std::string EditFeedbackFor(const auto& task, int parent) {
  std::string out = task.edit_feedback[static_cast<size_t>(parent)];
  if (auto it = task.failed_edits.find(parent); it != task.failed_edits.end()) {
    out += "None of the edits of an earlier answer for this kernel applied:\n" + it->second;
  }
  return out;
}

}  // namespace adaexplore
