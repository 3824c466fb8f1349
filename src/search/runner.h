#pragma once

// SearchRunner: runs the search on many tasks at once, from one loop. Each task has up to
// [run] in_flight steps in flight (1, the reference's protocol: each step sees the tree with
// every earlier result; more: a step is planned with the results known then, the steps still in
// flight counted as virtual losses, search/policy.h); the tasks' steps overlap, so LLM calls of
// one task run while another's kernel is evaluated. [run] max_tasks caps the tasks with steps in
// flight at once.
//
// A step: plan (search/policy.h) -> prompts (prompt/prompts.h) -> LLM calls (reviser and tuner
// for a small step, proposer for a large one) -> a kernel (edits applied, or the reply's code
// block) -> evaluation -> the node, written to the run database with its calls in one
// transaction, then added to the tree. A move that yields no kernel is tried once as the other
// kind (the reference's rule); if that yields none either, the step is recorded as verdict
// "no_kernel" (reward 0), so the budget counts what the model was asked for.
//
// Steps are numbered as they start (the smallest number neither recorded nor in flight) and
// nodes as they are recorded, so with one step in flight a step's number is its node's. Each
// step's record keeps its number, the results it was planned with and the steps in flight then
// (result "plan").
//
// Resume: tasks that already have steps in the run database are rebuilt from them and continue;
// every random draw of a step derives from (seed, task, step number), so a resumed run plans as
// the uninterrupted one would have (steps in flight at a kill are planned again under their
// numbers; none is lost or repeated). Failures of the LLM that retrying cannot fix (a refused key,
// a replay without the request, a spent budget) stop the run cleanly with their message.

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/log.h"
#include "core/result.h"
#include "eval/evaluator.h"
#include "llm/client.h"
#include "prompt/prompts.h"
#include "search/policy.h"
#include "search/run_spec.h"
#include "search/sol_budget.h"
#include "store/run_db.h"
#include "sys/signals.h"
#include "task/source_file.h"

namespace adaexplore {

struct RunnerOptions {
  // What the run is (method, steps, seed, search constants, reviser, confirm_best, the LLM
  // call's limits, the memory's rules): the stored spec itself, so each is declared once.
  RunSpec spec;
  ModelSpec model;  // spec.model, parsed.
  // spec.roles, parsed: the roles given a model of their own; the others call `model`.
  std::map<LlmRole, ModelSpec> role_models;
  std::string hardware;  // For the prompts: "NVIDIA H200".
  std::optional<double> temperature;
  Logger logger = NullLogger();
};

struct TaskProgress {
  std::string task;
  int steps_done = 0;
  int steps = 0;
  int node = 0;  // The node just added.
  std::string move;
  std::string verdict;
  std::string reason;  // Why the step's kernel is not correct (the verdict's reason); may be "".
  std::optional<double> speedup;
  std::optional<double> best_speedup;
  std::map<std::string, int> verdicts;
  int llm_failures_in_a_row = 0;  // The circuit breaker's count when this step finished.
};

// An LLM call that failed after its retries; the step it was for is `no_kernel`.
struct LlmFailure {
  std::string task;
  int in_a_row = 0;  // Failed calls in a row, this one included (the circuit breaker's count).
  int limit = 0;     // [llm] max_failures_in_a_row; 0: no limit.
  std::string message;
};

// What the caller sees of a run while it goes: its start (after it is in the database, before
// its first step), every finished step, every failed LLM call and every retry as it happens.
struct RunObserver {
  std::function<void(int64_t run_id, const RunSpec& spec, size_t tasks)> on_start;
  std::function<void(const TaskProgress& progress)> on_progress;
  std::function<void(const LlmFailure& failure)> on_llm_failure;
  std::function<void(const LlmRetry& retry)> on_llm_retry;  // A failed call waits to try again.
};

struct TaskSummary {
  std::string task;
  int steps = 0;
  std::optional<int> best_node;
  std::string best_verdict;  // "none" while no node exists.
  std::optional<double> best_speedup;
  std::string best_kernel;
  // A FlashInfer-Trace definition's best kernel as a FlashInfer-Bench Solution (JSON text);
  // empty for other kinds, or when its result does not say how it is called.
  std::string best_solution;
  std::map<std::string, int> verdicts;
  WorkStatus status = WorkStatus::kStopped;  // Finished, stopped (resume continues it), broken.
};

class SearchRunner {
 public:
  SearchRunner(RunnerOptions options, LlmClient& llm, Evaluator& evaluator, RunDb& db,
               const PromptSet& prompts);
  ~SearchRunner();

  // Why the run stopped early (a spent budget, an interrupt), if it did.
  const std::optional<std::string>& stop_reason() const { return stop_reason_; }
  bool interrupted() const { return interrupted_; }  // By a signal (the stop reason says so).

  // Runs (or resumes) run `run_id` over `tasks` until each has options.steps steps or the run
  // must stop. `observer` sees every finished step and failed LLM call (its on_start is the
  // session's). Returns the tasks' summaries, also after an interrupt or a spent budget (then
  // stop_reason() says so); an error only for what breaks the whole run (a refused key, a replay
  // miss, the database).
  Result<std::vector<TaskSummary>> Run(int64_t run_id, const std::vector<SourceFile>& tasks,
                                       const RunObserver& observer, const InterruptGuard* guard);

 private:
  struct Task;
  struct Step;
  // A call or evaluation in flight: the step it is for.
  struct StepRef {
    Task* task = nullptr;
    int step = 0;
  };
  // Whether `task` may start a step now (its budget, its limit in flight, the seed first, and
  // [run] max_tasks given `running` tasks with steps in flight).
  bool MayStart(const Task& task, int running) const;
  Status StartStep(Task& task);
  Status BeginMove(Task& task, Step& step);
  // A completed LLM call of a step: recorded (RecordCall), then its error (OnLlmError) or its
  // reply, by the role that asked (OnReply).
  Status OnLlm(Task& task, Step& step, LlmCompletion completion);
  Status RecordCall(Task& task, Step& step, const LlmCompletion& completion);
  Status OnLlmError(Task& task, Step& step, const ModelSpec& model, const LlmError& error);
  Status OnReply(Task& task, Step& step, const LlmCompletion& completion);
  // A reply that is a whole kernel (the proposer's), or search/replace edits (the tuner's).
  Status OnWholeKernel(Task& task, Step& step, const LlmCompletion& completion);
  Status OnEdits(Task& task, Step& step, const LlmCompletion& completion);
  Status OnKernel(Task& task, Step& step, std::string kernel);
  Status NoKernel(Task& task, Step& step, const std::string& why);
  // An evaluation came back: confirmed (confirm_best) and sanitized (sanitize_best) first where
  // it may be the task's new best, then recorded.
  Status OnEval(Task& task, Step& step, const EvalResult& result);
  bool MayBeNewBest(const Task& task, const EvalResult& result) const;
  Status Record(Task& task, Step& step, const EvalResult& result);
  Status RecordNode(Task& task, Step& step, StepRecord record, const NodeOutcome& outcome,
                    const KernelRecord& prompt_record);
  uint64_t SubmitLlm(Task& task, Step& step, LlmRole role, std::vector<ChatMessage> messages);
  PromptInputs Inputs(const Task& task, const std::vector<int>& nodes) const;
  Status Resume(Task& task);
  Status ResumeStep(Task& task, const StepRecord& step);
  TaskSummary Summarise(const Task& task) const;
  // The node whose kernel is `kernel`, or minus the number of another step in flight with it.
  std::optional<int> SameKernel(const Task& task, const Step& step,
                                const std::string& kernel) const;
  // A reply that repeats kernel `same` (SameKernel) is not evaluated: counted, and asked again
  // with a note up to kRepeatAsks times, then the step has no kernel.
  Status OnRepeat(Task& task, Step& step, const LlmCompletion& completion, int same);
  static constexpr size_t kRepeatAsks = 1;
  // Node `node`'s kernel as a Solution (task/flashinfer_solution.h); "" (and a warning) when it
  // cannot be made.
  std::string SolutionOf(const Task& task, int node) const;
  // The task's state for the step budget (search/sol_budget.h).
  TaskBudget Budget(const Task& task) const;

  RunnerOptions options_;
  LlmClient& llm_;
  Evaluator& evaluator_;
  RunDb& db_;
  const PromptSet& prompts_;
  int64_t run_id_ = 0;
  std::vector<std::unique_ptr<Task>> tasks_;
  std::map<uint64_t, StepRef> llm_waiting_;
  std::map<uint64_t, StepRef> eval_waiting_;
  RunObserver observer_;
  std::optional<std::string> stop_reason_;  // Set when the run must end: no new steps start.
  bool interrupted_ = false;
  // The circuit breaker: LLM calls failed since the last that did not, and the last errors.
  int failures_in_a_row_ = 0;
  std::deque<std::string> last_failures_;
};

}  // namespace adaexplore
