// SearchRunner's replies: what each LLM completion of a step becomes (search/runner.h). A call
// is recorded with the step; an error counts toward the circuit breaker, or ends the run when
// retrying cannot fix it; a reply becomes the proposer's whole kernel, the reviser's guidance for
// the tuner, or the tuner's edits applied to the parent; a kernel the tree already holds is asked
// again once; a move without a kernel is tried as the other kind, then recorded as no_kernel.

#include <fmt/format.h>

#include <algorithm>

#include "edits/code_block.h"
#include "edits/search_replace.h"
#include "llm/token_usage.h"
#include "search/runner.h"
#include "search/runner_task.h"
#include "task/flashinfer_solution.h"
#include "task/task_prompt.h"

namespace adaexplore {
namespace {

constexpr size_t kFailuresShown = 3;  // Errors the circuit breaker's message quotes.

nlohmann::json MessagesJson(const std::vector<ChatMessage>& messages) {
  nlohmann::json out = nlohmann::json::array();
  for (const ChatMessage& m : messages) {
    out.push_back({{"role", m.role}, {"content", m.content}});
  }
  return out;
}

}  // namespace

Status SearchRunner::OnLlm(Task& task, Step& step, LlmCompletion completion) {
  RETURN_IF_ERROR(RecordCall(task, step, completion));
  if (completion.error) {
    return OnLlmError(task, step, completion.request.model, *completion.error);
  }
  failures_in_a_row_ = 0;
  last_failures_.clear();
  return OnReply(task, step, completion);
}

Status SearchRunner::RecordCall(Task& task, Step& step, const LlmCompletion& completion) {
  CallRecord call{.role = std::string(LlmRoleName(completion.request.role)),
                  .model = completion.request.model.ToString(),
                  .messages = MessagesJson(step.pending_messages),
                  .cost_usd = completion.cost_usd,
                  .latency_s = completion.latency_s,
                  .attempts = completion.attempts,
                  .source = std::string(CallSourceName(completion.source))};
  if (completion.reply) {
    call.reply = completion.reply->text;
    call.usage = TokenUsageJson(completion.reply->usage);
  } else {
    call.error = completion.error->message;
  }
  if (completion.reply || completion.attempts > 0) {
    // Paid for (or at least sent): on record before anything else happens to this step, so that
    // a kill before the step is recorded loses none of it and a resume counts it.
    ASSIGN_OR_RETURN(call.cost_id,
                     db_.RecordCallCost(run_id_, task.source.name, task.tree.size(), call));
  }
  step.calls.push_back(std::move(call));
  return Status::Ok();
}

Status SearchRunner::OnLlmError(Task& task, Step& step, const ModelSpec& model,
                                const LlmError& error) {
  switch (error.kind) {
    case LlmErrorKind::kBudget:
      stop_reason_ = error.message;
      task.steps.erase(step.number);  // The unfinished step is not recorded; a resume redoes it.
      return Status::Ok();
    case LlmErrorKind::kAuth:
    case LlmErrorKind::kUnreachable:
    case LlmErrorKind::kReplayMiss:
    case LlmErrorKind::kCancelled:
      return Unavailable(fmt::format("{} ({}): {}", model.ToString(), LlmErrorKindName(error.kind),
                                     error.message));
    case LlmErrorKind::kTransient:
    case LlmErrorKind::kBadRequest:
      break;
  }
  ++failures_in_a_row_;
  last_failures_.push_back(error.message);
  if (last_failures_.size() > kFailuresShown) {
    last_failures_.pop_front();
  }
  const int limit = llm_.options().max_failures_in_a_row;
  if (observer_.on_llm_failure) {
    observer_.on_llm_failure(LlmFailure{.task = task.source.name,
                                        .in_a_row = failures_in_a_row_,
                                        .limit = limit,
                                        .message = error.message});
  }
  if (limit > 0 && failures_in_a_row_ >= limit) {
    // A dead or broken endpoint: every further step would be no_kernel. The unfinished steps are
    // not recorded; a resume redoes them once the endpoint works.
    std::string last;
    for (const std::string& message : last_failures_) {
      last += "\n  " + message;
    }
    return Unavailable(fmt::format(
        "stopping the run: {} LLM calls in a row to {} failed after their retries ([llm] "
        "max_failures_in_a_row); the last {}:{}",
        failures_in_a_row_, model.ToString(), last_failures_.size(), last));
  }
  return NoKernel(task, step, "the LLM call failed: " + error.message);
}

Status SearchRunner::OnReply(Task& task, Step& step, const LlmCompletion& completion) {
  switch (completion.request.role) {
    case LlmRole::kProposer:
      return OnWholeKernel(task, step, completion);
    case LlmRole::kReviser: {
      step.guidance = completion.reply->text;
      PromptInputs inputs = Inputs(task, step.plan.context);
      inputs.guidance = step.guidance;
      inputs.edit_feedback = EditFeedbackFor(task, step.plan.parent);
      SubmitLlm(task, step, LlmRole::kTuner, prompts_.Tuner(inputs));
      return Status::Ok();
    }
    case LlmRole::kTuner:
      return OnEdits(task, step, completion);
    case LlmRole::kRuleWriter:
    case LlmRole::kJudge:
    case LlmRole::kSynthesiser:
    case LlmRole::kOther:
      break;
  }
  return InternalError(fmt::format("a {} reply reached the search, which never asks for one",
                                   LlmRoleName(completion.request.role)));
}

Status SearchRunner::OnWholeKernel(Task& task, Step& step, const LlmCompletion& completion) {
  Result<std::string> kernel = ExtractKernel(completion.reply->text);
  if (!kernel.ok()) {
    return NoKernel(task, step, kernel.status().message());
  }
  if (const std::optional<int> same = SameKernel(task, step, *kernel)) {
    return OnRepeat(task, step, completion, *same);
  }
  return OnKernel(task, step, *std::move(kernel));
}

Status SearchRunner::OnEdits(Task& task, Step& step, const LlmCompletion& completion) {
  const std::string& parent = task.kernels[static_cast<size_t>(step.plan.parent)];
  EditParse parse = ParseEdits(completion.reply->text);
  if (parse.edits.empty()) {
    return NoKernel(task, step, "the tuner's reply held no search/replace edits");
  }
  EditOutcome outcome = ApplyEdits(parent, parse.edits);
  step.edit_feedback = outcome.Feedback();
  for (const std::string& problem : parse.problems) {
    step.edit_feedback += problem + "\n";
  }
  if (outcome.applied_count() == 0) {
    // Told to the next tuner that edits this kernel, not attached to whatever this step makes
    // instead (another kernel).
    const std::string why = "no edit applied: " + step.edit_feedback;
    task.failed_edits[step.plan.parent] = step.edit_feedback;
    step.failed_edits.emplace(step.plan.parent, std::move(step.edit_feedback));
    step.edit_feedback.clear();
    return NoKernel(task, step, why);
  }
  task.failed_edits.erase(step.plan.parent);
  if (outcome.kernel == parent) {
    return NoKernel(task, step, "the edits left the kernel unchanged");
  }
  if (const std::optional<int> same = SameKernel(task, step, outcome.kernel)) {
    return OnRepeat(task, step, completion, *same);
  }
  return OnKernel(task, step, std::move(outcome.kernel));
}

std::optional<int> SearchRunner::SameKernel(const Task& task, const Step& step,
                                            const std::string& kernel) const {
  for (size_t node = 1; node < task.kernels.size(); ++node) {
    if (task.kernels[node] == kernel) {
      return static_cast<int>(node);
    }
  }
  for (const auto& [number, other] : task.steps) {
    if (number != step.number && other.kernel == kernel) {
      return -number;  // Being evaluated for another step now.
    }
  }
  return std::nullopt;
}

Status SearchRunner::OnRepeat(Task& task, Step& step, const LlmCompletion& completion, int same) {
  step.repeats.push_back(same);
  const std::string which = same > 0 ? fmt::format("node {}'s kernel", same)
                                     : fmt::format("the kernel step {} is evaluating", -same);
  options_.logger->info("{}: the {} reply repeated {}{}", task.source.name,
                        LlmRoleName(completion.request.role), which,
                        step.repeats.size() > kRepeatAsks ? "" : "; asking again");
  if (step.repeats.size() > kRepeatAsks) {
    return NoKernel(task, step,
                    fmt::format("the LLM repeated {} (asked again {} time(s) with a note, it "
                                "repeated a kernel each time): not evaluated again",
                                which, kRepeatAsks));
  }
  // The same conversation, its reply, and a note: a cached or sampled reply is not asked for
  // again with the same words.
  std::vector<ChatMessage> messages = step.pending_messages;
  messages.push_back({.role = "assistant", .content = completion.reply->text});
  messages.push_back(
      {.role = "user",
       .content = fmt::format(
           "Your reply gives {} of this task exactly, which has been judged already{}. Do not "
           "repeat it: write a kernel that differs from every kernel shown above, following the "
           "same instructions and format.",
           which,
           same > 0 ? fmt::format(" ({})", task.records[static_cast<size_t>(same)].verdict) : "")});
  SubmitLlm(task, step, completion.request.role, std::move(messages));
  return Status::Ok();
}

Status SearchRunner::NoKernel(Task& task, Step& step, const std::string& why) {
  if (step.attempt == 0 && options_.spec.method == SearchMethod::kAdaExplore &&
      step.plan.parent != 0) {
    step.attempt = 1;
    step.edit_feedback.clear();  // About edits of a kernel the other move does not make.
    step.plan = OtherMove(task.tree, step.plan, options_.spec.method, options_.spec.search.explore,
                          step.random);
    options_.logger->info("{}: {}; trying a {} instead", task.source.name, why,
                          MoveKindName(step.plan.kind));
    return BeginMove(task, step);
  }
  const std::string no_kernel(StepVerdict::NoKernel().name());
  StepRecord record{.parent = step.plan.parent,
                    .move = std::string(MoveKindName(step.plan.kind)),
                    .context = step.plan.context,
                    .verdict = no_kernel,
                    .reason = why,
                    .result = {{"verdict", no_kernel}, {"reason", why}}};
  return RecordNode(task, step, std::move(record), NodeOutcome{.has_kernel = false},
                    KernelRecord{.verdict = no_kernel, .reason = why});
}

}  // namespace adaexplore
