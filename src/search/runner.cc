#include "search/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/hash.h"
#include "core/json_text.h"
#include "search/runner_task.h"
#include "search/step_result.h"
#include "store/stored_json.h"
#include "task/flashinfer_solution.h"
#include "task/task_file.h"
#include "task/task_prompt.h"

namespace adaexplore {
namespace {

constexpr double kPollSeconds = 1.0;
constexpr const char* kFixGuidance =
    "Every recent version is broken. Fix the error of the latest version first; keep what works.";

MoveKind MoveFromName(const std::string& name) {
  return name == "small_step" ? MoveKind::kSmall : MoveKind::kLarge;
}

// What a step's record keeps of how it was planned (result "plan").
nlohmann::json PlanJson(const TaskStep& step) {
  nlohmann::json in_flight = nlohmann::json::array();
  for (const auto& [number, pending] : step.in_flight) {
    in_flight.push_back({{"step", number},
                         {"parent", pending.parent},
                         {"move", std::string(MoveKindName(pending.kind))}});
  }
  return {{"step", step.number}, {"seen", step.seen}, {"in_flight", std::move(in_flight)}};
}

// The move a seed kernel's node is stored under; it is a large step from the root to the tree.
constexpr std::string_view kSeedMove = "seed";

}  // namespace

SearchRunner::SearchRunner(RunnerOptions options, LlmClient& llm, Evaluator& evaluator, RunDb& db,
                           const PromptSet& prompts)
    : options_(std::move(options)), llm_(llm), evaluator_(evaluator), db_(db), prompts_(prompts) {}

SearchRunner::~SearchRunner() = default;

Result<std::vector<TaskSummary>> SearchRunner::Run(int64_t run_id,
                                                   const std::vector<SourceFile>& tasks,
                                                   const RunObserver& observer,
                                                   const InterruptGuard* guard) {
  run_id_ = run_id;
  observer_ = observer;
  for (const SourceFile& source : tasks) {
    auto task = std::make_unique<Task>();
    task->source = source;
    task->tree = SearchTree(options_.spec.search.rewards);
    RETURN_IF_ERROR(db_.AddTask(run_id, {.name = source.name,
                                         .source = source.source,
                                         .steps = options_.spec.steps,
                                         .file = TaskFileJson(source)}));
    RETURN_IF_ERROR(Resume(*task));
    tasks_.push_back(std::move(task));
  }
  const auto running = [&] {
    return static_cast<int>(std::count_if(tasks_.begin(), tasks_.end(),
                                          [](const auto& t) { return !t->steps.empty(); }));
  };
  while (true) {
    for (auto& task : tasks_) {
      while (!stop_reason_ && MayStart(*task, running()) &&
             MayStartOwnStep(Budget(*task), options_.spec.steps, options_.spec.stop_at_sol)) {
        RETURN_IF_ERROR(StartStep(*task));
      }
    }
    // Steps that tasks at the speed-of-light target left, to the tasks furthest from it.
    while (!stop_reason_) {
      std::vector<TaskBudget> budgets;
      for (const auto& task : tasks_) {
        budgets.push_back(Budget(*task));
      }
      const std::optional<size_t> next =
          NextSpareStep(budgets, options_.spec.steps, options_.spec.stop_at_sol);
      if (!next || !MayStart(*tasks_[*next], running())) {
        break;
      }
      options_.logger->info("{}: takes a step left by a task at {} of the speed of light",
                            tasks_[*next]->source.name, options_.spec.stop_at_sol);
      RETURN_IF_ERROR(StartStep(*tasks_[*next]));
    }
    if (running() == 0) {
      break;
    }
    auto polled = evaluator_.Poll(Clock::now() + Seconds(kPollSeconds), guard, {llm_.wakeup_fd()});
    if (!polled.ok() && polled.status().code() == StatusCode::kCancelled) {
      // Interrupted: steps in flight are dropped unrecorded (a resume redoes them); the
      // completed ones are summarised as usual.
      stop_reason_ = polled.status().message();
      interrupted_ = true;
      for (auto& task : tasks_) {
        task->steps.clear();
      }
      break;
    }
    ASSIGN_OR_RETURN(auto ready, std::move(polled));
    for (auto& [id, result] : ready) {
      auto it = eval_waiting_.find(id);
      CHECK(it != eval_waiting_.end());  // Every evaluation was submitted for a task's step.
      const StepRef ref = it->second;
      eval_waiting_.erase(it);
      auto step = ref.task->steps.find(ref.step);
      CHECK(step != ref.task->steps.end());  // Steps leave only when recorded or dropped whole.
      RETURN_IF_ERROR(OnEval(*ref.task, step->second, result));
    }
    for (LlmCompletion& completion : llm_.TakeCompletions()) {
      auto it = llm_waiting_.find(completion.id);
      CHECK(it != llm_waiting_.end());  // Every LLM call was submitted for a task's step.
      const StepRef ref = it->second;
      llm_waiting_.erase(it);
      auto step = ref.task->steps.find(ref.step);
      CHECK(step != ref.task->steps.end());
      RETURN_IF_ERROR(OnLlm(*ref.task, step->second, std::move(completion)));
    }
    for (const LlmRetry& retry : llm_.TakeRetries()) {  // After TakeCompletions drained the fd.
      if (observer_.on_llm_retry) {
        observer_.on_llm_retry(retry);
      }
    }
  }
  std::vector<TaskSummary> summaries;
  for (auto& task : tasks_) {
    TaskSummary summary = Summarise(*task);
    if (summary.best_node && task->source.kind == TaskKind::kFlashInfer) {
      summary.best_solution = SolutionOf(*task, *summary.best_node);  // Once, at the end.
    }
    RETURN_IF_ERROR(db_.SetTaskStatus(run_id_, task->source.name, summary.status));
    summaries.push_back(std::move(summary));
  }
  return summaries;
}

Status SearchRunner::Resume(Task& task) {
  ASSIGN_OR_RETURN(std::vector<StepRecord> steps, db_.Steps(run_id_, task.source.name));
  for (const StepRecord& step : steps) {
    // The stored result is read field by field: a field of the wrong type is an error naming
    // the row, not an exception.
    RETURN_IF_ERROR(ReadStoredJson(NodesRow(run_id_, task.source.name, step.node), "result",
                                   [&] { return ResumeStep(task, step); }));
  }
  if (!steps.empty()) {
    options_.logger->info("{}: resumed after {} steps", task.source.name, steps.size());
  }
  return Status::Ok();
}

Status SearchRunner::ResumeStep(Task& task, const StepRecord& step) {
  const std::optional<StepVerdict> verdict = StepVerdict::Parse(step.verdict);
  if (!verdict) {
    return InvalidArgument(fmt::format("run {} task {}: node {} has an unknown verdict '{}'",
                                       run_id_, task.source.name, step.node, step.verdict));
  }
  // A step without a kernel stored no evaluation.
  const std::optional<EvalResult> result =
      verdict->has_kernel() ? std::optional<EvalResult>(EvalResultFromJson(step.result))
                            : std::nullopt;
  const NodeOutcome outcome{
      .has_kernel = verdict->has_kernel(),
      .compiled = step.compiled,
      .correct = step.correct,
      .correct_untimed = verdict->is(Verdict::kTimeout) && step.result.is_object() &&
                         step.result.value("passed_trials", false),
      .sizes_only = result && OutcomeOf(*result, options_.spec.size_specific_best).sizes_only,
      .unsafe = result && OutcomeOf(*result, options_.spec.size_specific_best).unsafe,
      .speedup = step.speedup.value_or(0),
      .sol_fraction = result ? result->sol_fraction : std::nullopt};
  const int id = task.tree.Add(step.parent, MoveFromName(step.move), outcome);
  if (id != step.node) {
    return InternalError(fmt::format("run {} task {}: node {} is stored as {}", run_id_,
                                     task.source.name, id, step.node));
  }
  task.kernels.push_back(step.kernel);
  if (result) {
    task.AddRecord(RecordOf(id, step.kernel, *result), outcome.Barred());
    if (std::optional<TaskRoofline> roofline = RooflineOf(*result)) {
      task.roofline = roofline;
    }
  } else {
    task.AddRecord(KernelRecord{.node = id, .verdict = step.verdict, .reason = step.reason});
  }
  task.edit_feedback.push_back(step.result.value("edit_feedback", ""));
  ++task.verdicts[step.verdict];
  ++task.steps_done;
  // A step recorded before steps had numbers of their own was its node's.
  const nlohmann::json* plan = step.result.contains("plan") && step.result["plan"].is_object()
                                   ? &step.result["plan"]
                                   : nullptr;
  task.recorded.insert(plan ? plan->value("step", step.node) : step.node);
  if (step.result.contains("failed_edits")) {
    const nlohmann::json& failed = step.result["failed_edits"];
    task.failed_edits[failed.value("parent", 0)] = failed.value("feedback", "");
  } else if (step.move == MoveKindName(MoveKind::kSmall) && verdict->has_kernel()) {
    task.failed_edits.erase(step.parent);  // Edits to the parent applied.
  }
  if (verdict->is(Verdict::kTaskError)) {
    task.broken = true;  // As when it was recorded: nothing more can be judged against it.
  }
  return Status::Ok();
}

bool SearchRunner::MayStart(const Task& task, int running) const {
  const auto seed = options_.spec.seed_kernels.find(task.source.name);
  if (seed != options_.spec.seed_kernels.end() && !task.recorded.contains(1) &&
      !task.steps.empty()) {
    return false;  // The seed is judged before anything is planned from it.
  }
  const int max_tasks = options_.spec.max_tasks;
  return !task.steps.empty() || max_tasks <= 0 || running < max_tasks;
}

Status SearchRunner::StartStep(Task& task) {
  int number = 1;
  while (task.recorded.contains(number) || task.steps.contains(number)) {
    ++number;
  }
  std::vector<std::pair<int, PendingStep>> in_flight;
  std::vector<PendingStep> pending;
  for (const auto& [other, step] : task.steps) {
    in_flight.emplace_back(other, PendingStep{.parent = step.plan.parent, .kind = step.plan.kind});
    pending.push_back(in_flight.back().second);
  }
  Step& step = task.steps[number];
  step.number = number;
  step.seen = task.tree.size() - 1;
  step.in_flight = std::move(in_flight);
  // Every draw of a step comes from (seed, task, number), so a resumed run plans the same.
  const std::string digest = Sha256Hex(task.source.name);
  const uint64_t task_bits = std::stoull(digest.substr(0, 15), nullptr, 16);
  step.random.seed(options_.spec.seed * 0x9E3779B97F4A7C15ULL ^ task_bits ^
                   static_cast<uint64_t>(number));
  const auto seed = options_.spec.seed_kernels.find(task.source.name);
  if (seed != options_.spec.seed_kernels.end() && number == 1) {
    // The user's kernel is the tree's first node, judged as any candidate.
    step.seed = true;
    step.plan = {.parent = 0, .kind = MoveKind::kLarge};
    return OnKernel(task, step, seed->second);
  }
  if (seed != options_.spec.seed_kernels.end() && number == 2 &&
      !task.tree.node(1).outcome.correct) {
    // A seed that is not correct is still the starting point: the next step fixes it.
    step.plan = {.parent = 1,
                 .kind = MoveKind::kSmall,
                 .context = SmallStepContext(task.tree, 1, options_.spec.search.explore)};
    return BeginMove(task, step);
  }
  step.plan =
      PlanStep(task.tree, options_.spec.method, options_.spec.search.explore, step.random, pending);
  return BeginMove(task, step);
}

PromptInputs SearchRunner::Inputs(const Task& task, const std::vector<int>& nodes) const {
  PromptInputs inputs{
      .task_name = task.source.path.empty()
                       ? task.source.name + ".py"
                       : std::filesystem::path(task.source.path).filename().string(),
      .task_source = PromptSource(task.source),
      .task_kind = task.source.kind,
      .hardware = options_.hardware,
      .memory_rules = options_.spec.memory_rules,
      .roofline = task.roofline};
  for (int id : nodes) {
    inputs.kernels.push_back(task.records[static_cast<size_t>(id)]);
  }
  return inputs;
}

Status SearchRunner::BeginMove(Task& task, Step& step) {
  // A small step edits its parent's kernel; from a node without one, regenerate instead.
  if (step.plan.kind == MoveKind::kSmall &&
      task.kernels[static_cast<size_t>(step.plan.parent)].empty()) {
    step.plan.kind = MoveKind::kLarge;
    step.plan.context =
        RepresentativePool(task.tree, step.plan.parent, options_.spec.search.explore, step.random);
  }
  if (step.plan.kind == MoveKind::kLarge) {
    SubmitLlm(task, step, LlmRole::kProposer, prompts_.Proposer(Inputs(task, step.plan.context)));
    return Status::Ok();
  }
  const bool any_correct = std::any_of(step.plan.context.begin(), step.plan.context.end(),
                                       [&](int id) { return task.tree.node(id).outcome.correct; });
  if (options_.spec.reviser && any_correct) {
    SubmitLlm(task, step, LlmRole::kReviser, prompts_.Reviser(Inputs(task, step.plan.context)));
    return Status::Ok();
  }
  PromptInputs inputs = Inputs(task, step.plan.context);
  inputs.guidance = any_correct ? "" : kFixGuidance;
  inputs.edit_feedback = EditFeedbackFor(task, step.plan.parent);
  SubmitLlm(task, step, LlmRole::kTuner, prompts_.Tuner(inputs));
  return Status::Ok();
}

uint64_t SearchRunner::SubmitLlm(Task& task, Step& step, LlmRole role,
                                 std::vector<ChatMessage> messages) {
  step.pending_messages = messages;
  auto own = options_.role_models.find(role);
  ChatRequest request{.model = own == options_.role_models.end() ? options_.model : own->second,
                      .messages = std::move(messages),
                      .max_output_tokens = options_.spec.max_output_tokens,
                      .temperature = options_.temperature,
                      .reasoning_effort = options_.spec.reasoning_effort,
                      // Distinct per step and attempt: the same prompt asked again (parallel
                      // sampling asks one prompt every step) must get a fresh sample.
                      .sample = static_cast<int64_t>(step.number) * 10 + step.attempt,
                      .role = role,
                      .task = task.source.name};
  const uint64_t id = llm_.Submit(std::move(request));
  llm_waiting_[id] = {.task = &task, .step = step.number};
  return id;
}

namespace {

// The candidate file a step's kernel is evaluated as (with one step in flight, named after the
// node it becomes).
SourceFile StepCandidate(const std::string& task, int number, const std::string& kernel) {
  return {.path = "",
          .name = fmt::format("{}_node{}", task, number),
          .source = kernel,
          .sha256 = Sha256Hex(kernel)};
}

}  // namespace

Status SearchRunner::OnKernel(Task& task, Step& step, std::string kernel) {
  SourceFile candidate = StepCandidate(task.source.name, step.number, kernel);
  step.kernel = std::move(kernel);
  const uint64_t id = evaluator_.Submit({.task = task.source, .candidate = std::move(candidate)});
  eval_waiting_[id] = {.task = &task, .step = step.number};
  return Status::Ok();
}

Status SearchRunner::OnEval(Task& task, Step& step, const EvalResult& measured) {
  if (measured.verdict == Verdict::kError) {
    return Unavailable("the harness could not evaluate a kernel of " + task.source.name + ": " +
                       measured.reason);
  }
  if (std::exchange(step.sanitizing, false)) {
    return Record(task, step, measured);  // The final result, with the sanitizer's checks.
  }
  if (options_.spec.confirm_best && !step.first && MayBeNewBest(task, measured)) {
    // Measure it again, elsewhere, before it counts.
    step.first = measured;
    const uint64_t id =
        evaluator_.Submit({.task = task.source,
                           .candidate = StepCandidate(task.source.name, step.number, step.kernel),
                           .measurement = 1,
                           .avoid_worker = measured.worker});
    eval_waiting_[id] = {.task = &task, .step = step.number};
    return Status::Ok();
  }
  const EvalResult result = step.first ? Confirmed(*step.first, measured) : measured;
  if (options_.spec.sanitize_best && result.sanitizer.empty() && MayBeNewBest(task, result)) {
    // Run under compute-sanitizer before it counts.
    step.sanitizing = true;
    const uint64_t id = evaluator_.SubmitSanitizer(
        {.task = task.source,
         .candidate = StepCandidate(task.source.name, step.number, step.kernel)},
        result);
    eval_waiting_[id] = {.task = &task, .step = step.number};
    return Status::Ok();
  }
  return Record(task, step, result);
}

bool SearchRunner::MayBeNewBest(const Task& task, const EvalResult& result) const {
  return result.verdict == Verdict::kCorrect && result.speedup &&
         !OutcomeOf(result, options_.spec.size_specific_best).Barred() &&
         IsNewBest(task.tree, *result.speedup);
}

Status SearchRunner::Record(Task& task, Step& step, const EvalResult& result) {
  if (std::optional<TaskRoofline> roofline = RooflineOf(result)) {
    task.roofline = roofline;
  }
  std::string kernel = std::move(step.kernel);
  const NodeOutcome outcome = OutcomeOf(result, options_.spec.size_specific_best);
  nlohmann::json result_json = ToJson(result);
  result_json["edit_feedback"] = step.edit_feedback;
  StepRecord record{.parent = step.plan.parent,
                    .move = std::string(step.seed ? kSeedMove : MoveKindName(step.plan.kind)),
                    .context = step.plan.context,
                    .kernel = std::move(kernel),
                    .verdict = std::string(VerdictName(result.verdict)),
                    .reason = result.reason,
                    .compiled = outcome.compiled,
                    .correct = outcome.correct,
                    .speedup = result.speedup,
                    .result = std::move(result_json)};
  if (result.verdict == Verdict::kTaskError) {
    task.broken = true;  // No kernel can be judged against a broken task.
    options_.logger->error("{}: the task is broken: {}", task.source.name, result.reason);
  }
  const KernelRecord prompt_record = RecordOf(task.tree.size(), record.kernel, result);
  return RecordNode(task, step, std::move(record), outcome, prompt_record);
}

Status SearchRunner::RecordNode(Task& task, Step& step, StepRecord record,
                                const NodeOutcome& outcome, const KernelRecord& prompt_record) {
  record.node = task.tree.size();
  record.result["plan"] = PlanJson(step);
  if (!step.repeats.empty()) {  // Stored, so reports count the replies that were not new.
    record.result["llm_repeats"] = step.repeats;
  }
  record.calls = std::move(step.calls);
  if (step.failed_edits) {  // Stored, so a resumed run tells the tuner too.
    record.result["failed_edits"] = {{"parent", step.failed_edits->first},
                                     {"feedback", step.failed_edits->second}};
  }
  const std::string edit_feedback = step.edit_feedback;
  RETURN_IF_ERROR(db_.RecordStep(run_id_, task.source.name, record));
  const int id = task.tree.Add(record.parent, MoveFromName(record.move), outcome);
  task.kernels.push_back(record.kernel);
  KernelRecord shown = prompt_record;
  shown.node = id;
  task.AddRecord(std::move(shown), outcome.Barred());
  task.edit_feedback.push_back(edit_feedback);
  ++task.verdicts[record.verdict];
  ++task.steps_done;
  task.recorded.insert(step.number);
  task.steps.erase(step.number);  // `step` is gone from here on.
  if (observer_.on_progress) {
    const TaskSummary summary = Summarise(task);
    observer_.on_progress(TaskProgress{.task = task.source.name,
                                       .steps_done = task.steps_done,
                                       .steps = options_.spec.steps,
                                       .node = id,
                                       .move = record.move,
                                       .verdict = record.verdict,
                                       .reason = record.reason,
                                       .speedup = record.speedup,
                                       .best_speedup = summary.best_speedup,
                                       .verdicts = task.verdicts,
                                       .llm_failures_in_a_row = failures_in_a_row_});
  }
  return Status::Ok();
}

TaskBudget SearchRunner::Budget(const Task& task) const {
  TaskBudget budget{.steps_done = task.steps_done,
                    .in_flight = static_cast<int>(task.steps.size()),
                    .max_in_flight = options_.spec.in_flight,
                    .broken = task.broken,
                    .best_sol = task.best_sol};
  return budget;
}

TaskSummary SearchRunner::Summarise(const Task& task) const {
  const bool done =
      task.steps_done >= options_.spec.steps || ReachedSol(Budget(task), options_.spec.stop_at_sol);
  TaskSummary summary{.task = task.source.name,
                      .steps = task.steps_done,
                      .best_verdict = "none",
                      .verdicts = task.verdicts,
                      .status = task.broken ? WorkStatus::kBroken
                                : done      ? WorkStatus::kFinished
                                            : WorkStatus::kStopped};
  if (std::optional<int> best = task.tree.GlobalBest()) {
    summary.best_node = *best;
    const NodeOutcome& outcome = task.tree.node(*best).outcome;
    summary.best_verdict = !outcome.Barred()    ? task.records[static_cast<size_t>(*best)].verdict
                           : outcome.sizes_only ? kSizesOnlyBest
                                                : kUnsafeBest;
    summary.best_kernel = task.kernels[static_cast<size_t>(*best)];
    if (outcome.correct && !outcome.Barred()) {
      summary.best_speedup = outcome.speedup;
    }
  }
  return summary;
}

std::string SearchRunner::SolutionOf(const Task& task, int node) const {
  Result<std::vector<StepRecord>> steps = db_.Steps(run_id_, task.source.name);
  const StepRecord* step = nullptr;
  if (steps.ok()) {
    for (const StepRecord& s : *steps) {
      step = s.node == node ? &s : step;
    }
  }
  Result<nlohmann::json> solution =
      step == nullptr
          ? Result<nlohmann::json>(NotFound(fmt::format("node {} is not stored", node)))
          : FlashInferSolution(
                task.source, step->kernel,
                step->result.is_object() ? step->result.value("facts", nlohmann::json::object())
                                         : nlohmann::json::object(),
                SolutionOrigin{
                    .name = FlashInferSolutionName(task.source, run_id_, node),
                    .model = options_.spec.model,
                    .device = options_.hardware,
                    .on_gpu = evaluator_.workers().front().device_kind == DeviceKind::kCuda,
                    .found = fmt::format("run {}, node {}", run_id_, node),
                    .speedup = task.tree.node(node).outcome.speedup});
  if (!solution.ok()) {
    options_.logger->warn("{}: its best kernel is written as a Python file, not a Solution: {}",
                          task.source.name, solution.status().message());
    return "";
  }
  return JsonText(*solution, 2) + "\n";
}

}  // namespace adaexplore
