#include "eval/sanitizer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "core/text.h"
#include "workers/facts.h"

namespace adaexplore {
namespace {

constexpr std::array<std::string_view, 4> kTools = {"memcheck", "racecheck", "synccheck",
                                                    "initcheck"};
constexpr double kJobStartS = 60;  // Loading the task and the sandbox, before the first tool.
constexpr size_t kTailShown = 400;

// The end of a run's output, for a failed one: where the reason is.
std::string LastLines(const std::string& tail) {
  std::string text(Trim(tail));
  return text.size() > kTailShown ? "..." + text.substr(text.size() - kTailShown) : text;
}

SanitizerCheck ReadRun(const SanitizerRun& run) {
  SanitizerCheck check{.tool = run.tool, .wall_s = run.wall_s};
  if (run.errors) {
    check.errors = static_cast<int>(*run.errors);
  }
  std::string how;
  switch (run.ended) {
    case SanitizerEnded::kClean:
      check.outcome = SanitizerOutcome::kClean;
      return check;
    case SanitizerEnded::kErrors:
      check.outcome = SanitizerOutcome::kErrors;
      check.detail = run.records.empty() ? LastLines(run.tail)
                                         : fmt::format("{}", fmt::join(run.records, "; "));
      return check;
    case SanitizerEnded::kMissing:
      check.outcome = SanitizerOutcome::kNotRun;
      check.detail = run.tail;
      return check;
    case SanitizerEnded::kUnusable:  // No candidate code had run: the worker's, not the kernel's.
      check.outcome = SanitizerOutcome::kNotRun;
      check.detail =
          "the tool cannot run CUDA in the candidate's sandbox on this worker (the "
          "harness's own target failed under it): " +
          LastLines(run.tail);
      return check;
    case SanitizerEnded::kTargetFailed:
      how = "the kernel's call raised under it";
      break;
    case SanitizerEnded::kTimedOut:
      how = "the kernel's call did not finish in its time under it";
      break;
    case SanitizerEnded::kSignal:
      how = fmt::format("it was killed (signal {})", run.signal.value_or(0));
      break;
    case SanitizerEnded::kToolFailed:
      how = run.exit_code ? fmt::format("it exited with status {}", *run.exit_code)
                          : "it ended without a status";
      break;
  }
  check.outcome = SanitizerOutcome::kFailed;
  check.detail = fmt::format("{}: {}", how, LastLines(run.tail));
  return check;
}

// Whether the job reached its `sanitize` phase, where the candidate's code runs.
bool ToolsStarted(const nlohmann::json& facts) {
  if (!facts.is_object()) {
    return false;
  }
  const nlohmann::json phases = facts.value("phases", nlohmann::json::object());
  return (phases.is_object() && phases.contains("sanitize")) ||
         facts.value("phase", nlohmann::json()) == "sanitize";
}

// Whether the job ended in a phase that runs no candidate code: the task's, or the tool's probe
// of the harness's own target (a limit or the harness ending it there is never the kernel's).
bool EndedBeforeTheCandidate(const nlohmann::json& facts) {
  static constexpr std::array<std::string_view, 4> kBefore = {"starting", "load_task", "reference",
                                                              "sanitize_probe"};
  if (!facts.is_object() || !facts.contains("phase") || !facts["phase"].is_string()) {
    return false;
  }
  return std::ranges::find(kBefore, facts["phase"].get<std::string>()) != kBefore.end();
}

std::string CheckText(const SanitizerCheck& check) {
  if (check.outcome == SanitizerOutcome::kErrors) {
    return fmt::format("compute-sanitizer {} found {}: {}", check.tool,
                       check.errors
                           ? fmt::format("{} error{}", *check.errors, *check.errors == 1 ? "" : "s")
                           : "errors",
                       check.detail);
  }
  return fmt::format("compute-sanitizer {} could not vouch for it: {}", check.tool, check.detail);
}

}  // namespace

std::vector<std::string> SanitizerTools(const EvalProfile& profile) {
  if (profile.sanitizer_tools == "all") {
    return {kTools.begin(), kTools.end()};
  }
  std::vector<std::string> tools;
  std::string_view text = profile.sanitizer_tools;
  while (!text.empty()) {
    const size_t comma = std::min(text.find(','), text.size());
    tools.emplace_back(text.substr(0, comma));
    text.remove_prefix(std::min(comma + 1, text.size()));
  }
  return tools;
}

std::vector<std::string_view> SanitizerToolChoices() {
  return {"memcheck,racecheck", "memcheck", "racecheck", "synccheck", "initcheck", "all"};
}

void AsSanitizerRun(const EvalProfile& profile, JobOptions& options) {
  options.sanitize = SanitizerTools(profile);
  options.sanitize_timeout_s = profile.sanitizer_timeout_s;
  CheckOnly(options);
}

double SanitizerJobTimeout(const EvalProfile& profile) {
  return kJobStartS +
         profile.sanitizer_timeout_s * static_cast<double>(SanitizerTools(profile).size());
}

std::vector<SanitizerCheck> ReadSanitizerFacts(const nlohmann::json& facts,
                                               const std::vector<std::string>& tools) {
  const Result<Facts> typed = DecodeFacts(facts);
  const Result<FactStatus> status = StatusOf(facts);
  std::vector<SanitizerCheck> checks;
  for (const std::string& tool : tools) {
    const SanitizerRun* run = nullptr;
    if (typed.ok()) {
      const auto it = std::ranges::find(typed->sanitizer, tool, &SanitizerRun::tool);
      run = it == typed->sanitizer.end() ? nullptr : &*it;
    }
    if (run != nullptr) {
      checks.push_back(ReadRun(*run));
      continue;
    }
    // No run of this tool: the job ended before it, or its facts cannot be read. Once the
    // tools had started, the candidate's code had run: whatever ended the job may be its doing
    // (killed, out of time, facts it made unreadable). Before, the harness's or the task's.
    const bool candidates =
        ToolsStarted(facts) || (!EndedBeforeTheCandidate(facts) && status.ok() &&
                                (*status == FactStatus::kTimeout || *status == FactStatus::kCrash ||
                                 *status == FactStatus::kMemoryLimit));
    std::string said;
    if (!typed.ok()) {
      said = typed.status().message();
    } else if (!typed->message.empty()) {
      said = typed->message;
    } else {
      said = typed->error.message;
    }
    checks.push_back(
        {.tool = tool,
         .outcome = candidates ? SanitizerOutcome::kFailed : SanitizerOutcome::kNotRun,
         .detail = fmt::format("the sanitizer's job ended {} before this tool ran{}",
                               status.ok() ? std::string(FactStatusName(*status)) : "unreadable",
                               said.empty() ? "" : ": " + said)});
  }
  return checks;
}

std::vector<SanitizerCheck> SanitizerNotRun(const std::vector<std::string>& tools,
                                            const std::string& why) {
  std::vector<SanitizerCheck> checks;
  for (const std::string& tool : tools) {
    checks.push_back({.tool = tool, .outcome = SanitizerOutcome::kNotRun, .detail = why});
  }
  return checks;
}

void AddSanitizerChecks(std::vector<SanitizerCheck> checks, EvalResult& result) {
  result.sanitizer = std::move(checks);
  if (std::string text = SanitizerText(result); !text.empty()) {
    result.findings.push_back(std::move(text));
  }
}

bool UnsafeUnderSanitizer(const EvalResult& result) {
  return result.verdict == Verdict::kCorrect && !SanitizerText(result).empty();
}

std::string SanitizerText(const EvalResult& result) {
  for (SanitizerOutcome worst : {SanitizerOutcome::kErrors, SanitizerOutcome::kFailed}) {
    for (const SanitizerCheck& check : result.sanitizer) {
      if (check.outcome == worst) {
        return CheckText(check);
      }
    }
  }
  return "";
}

}  // namespace adaexplore
