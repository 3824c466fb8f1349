#include "report/run_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <utility>

#include "core/hash.h"
#include "eval/sanitizer.h"
#include "eval/size_checks.h"
#include "store/stored_json.h"
#include "task/task_file.h"

namespace adaexplore {
namespace {

nlohmann::json Optional(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json MetricsJson(const SuiteMetrics& m) {
  nlohmann::json fast_p = nlohmann::json::object();
  for (const auto& [p, share] : m.fast_p) {
    fast_p[fmt::format("{:g}", p)] = share;
  }
  return {{"tasks", m.tasks},
          {"acc", m.acc},
          {"speedup", m.speedup},
          {"fast_1.2", m.fast_1_2},
          {"fast_2", m.fast_2},
          {"geomean", Optional(m.geomean)},
          {"sol", Optional(m.sol)},
          {"sol_tasks", m.sol_tasks},
          {"fast_p", fast_p},
          {"compile_rate", m.compile_rate},
          {"correct_rate", m.correct_rate},
          {"steps", m.steps},
          {"degenerate_tasks", m.degenerate_tasks},
          {"vs_compile",
           {{"tasks", m.compile_tasks},
            {"faster", m.beats_compile},
            {"geomean", Optional(m.geomean_vs_compile)}}}};
}

std::optional<double> Number(const nlohmann::json& j, const char* key) {
  const nlohmann::json value = j.value(key, nlohmann::json());
  return value.is_number() ? std::optional<double>(value.get<double>()) : std::nullopt;
}

// object[key] when it is a string, else `fallback`: what a report shows of a stored setting it
// only prints (a damaged one prints as unknown rather than stopping the report).
std::string TextOr(const nlohmann::json& object, const char* key, const std::string& fallback) {
  if (!object.is_object()) {
    return fallback;
  }
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

std::string Ms(const std::optional<double>& ms) { return ms ? fmt::format("{:.4g}", *ms) : "-"; }

// A CSV field, quoted when it holds a comma, a quote or a line break.
std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) {
    return text;
  }
  std::string out = "\"";
  for (char c : text) {
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  }
  return out + "\"";
}

std::string Percent(double share) { return fmt::format("{:.0f}%", 100 * share); }

// Runs pooled by method, in order of first appearance.
std::vector<std::pair<std::string, SuiteMetrics>> ByMethod(const std::vector<RunReport>& reports) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<TaskOutcome>> pooled;
  for (const RunReport& r : reports) {
    if (!pooled.count(r.run.method)) {
      order.push_back(r.run.method);
    }
    auto& tasks = pooled[r.run.method];
    tasks.insert(tasks.end(), r.tasks.begin(), r.tasks.end());
  }
  std::vector<std::pair<std::string, SuiteMetrics>> out;
  for (const std::string& method : order) {
    out.emplace_back(method, ComputeMetrics(pooled[method]));
  }
  return out;
}

// A speedup figure to three significant digits, trailing zeros kept ("1.50", "0.00388"), so a
// CPU run's tiny speedups never read "0.00"; from 100 on, whole numbers.
std::string Figure(double x) {
  const std::string three = fmt::format("{:#.3g}", x);
  // 99.96 rounds to "100." at three digits, and 1234 reads "1.23e+03": from 100 on, whole
  // numbers (a tiny figure keeps its exponent: "1.00e-05").
  return three.back() == '.' || three.find("e+") != std::string::npos ? fmt::format("{:.0f}", x)
                                                                      : three;
}

std::string MetricsRow(const std::string& label, const SuiteMetrics& m) {
  return fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", label, m.tasks,
                     Percent(m.acc), Figure(m.speedup), Percent(m.fast_1_2), Percent(m.fast_2),
                     m.geomean ? Figure(*m.geomean) : "-", Percent(m.compile_rate),
                     Percent(m.correct_rate), m.sol ? Percent(*m.sol) : "-");
}

// The task table's note: a seeded start and how far the search got from it; a degenerate task.
std::string TaskNote(const TaskOutcome& t) {
  std::vector<std::string> notes;
  if (t.seeded) {
    notes.push_back(t.seed_speedup && t.speedup && *t.seed_speedup > 0
                        ? fmt::format("from your kernel ({:.3g}x): {:.3g}x over it",
                                      *t.seed_speedup, *t.speedup / *t.seed_speedup)
                        : "from your kernel (not correct)");
  }
  if (t.degenerate) {
    notes.emplace_back("degenerate: trivial outputs pass its checks");
  }
  if (t.workloads_total > 0) {
    notes.push_back(fmt::format("on {} of its {} workloads (--workloads): a partial set",
                                t.workloads, t.workloads_total));
  }
  if (t.sizes_only_steps > 0) {
    notes.push_back(fmt::format(
        "{} kernel{} correct at the task's sizes only (up to {:.3g}x), not counted",
        t.sizes_only_steps, t.sizes_only_steps == 1 ? "" : "s", t.sizes_only_speedup.value_or(0)));
  }
  if (t.unsafe_steps > 0) {
    notes.push_back(fmt::format(
        "{} kernel{} compute-sanitizer found errors in or could not finish (up to {:.3g}x), not "
        "counted",
        t.unsafe_steps, t.unsafe_steps == 1 ? "" : "s", t.unsafe_speedup.value_or(0)));
  }
  if (t.llm_repeats > 0) {
    notes.push_back(fmt::format("{} LLM repl{} repeated a kernel (not evaluated again)",
                                t.llm_repeats, t.llm_repeats == 1 ? "y" : "ies"));
  }
  return fmt::format("{}", fmt::join(notes, "; "));
}

}  // namespace

bool SizesOnlyStep(const StepRecord& step) {
  return step.correct && step.result.is_object() &&
         CorrectAtTaskSizesOnly(EvalResultFromJson(step.result));
}

bool UnsafeStep(const StepRecord& step) {
  return step.correct && step.result.is_object() &&
         UnsafeUnderSanitizer(EvalResultFromJson(step.result));
}

bool CountsForBest(const StepRecord& step, bool size_specific_best) {
  return step.correct && step.speedup && (size_specific_best || !SizesOnlyStep(step)) &&
         !UnsafeStep(step);
}

TaskOutcome OutcomeOf(const std::string& task, const std::vector<StepRecord>& steps,
                      bool size_specific_best) {
  TaskOutcome t{.task = task};
  double best = 0;
  for (const StepRecord& step : steps) {
    ++t.steps;
    t.compiled_steps += step.compiled;
    if (step.move == "seed") {  // The user's own kernel, the search's starting point.
      t.seeded = true;
      t.seed_speedup = step.correct ? step.speedup : std::nullopt;
    }
    if (step.correct && step.speedup && UnsafeStep(step)) {
      ++t.correct_steps;
      ++t.unsafe_steps;
      t.unsafe_speedup = std::max(t.unsafe_speedup.value_or(0), *step.speedup);
    } else if (step.correct && step.speedup && !CountsForBest(step, size_specific_best)) {
      ++t.correct_steps;
      ++t.sizes_only_steps;
      t.sizes_only_speedup = std::max(t.sizes_only_speedup.value_or(0), *step.speedup);
    } else if (step.correct && step.speedup) {
      ++t.correct_steps;
      t.correct = true;
      if (*step.speedup > best || !t.speedup) {  // The best kernel, the earliest on ties.
        t.sol_fraction =
            step.result.is_object() ? Number(step.result, "sol_fraction") : std::nullopt;
        t.scope = step.result.is_object() ? TextOr(step.result, "scope", "call") : "call";
      }
      best = std::max(best, *step.speedup);
      t.speedup = best;
    }
    t.best_by_step.push_back(best);
    if (step.result.is_object()) {
      const nlohmann::json& repeats = step.result.value("llm_repeats", nlohmann::json());
      t.llm_repeats += repeats.is_array() ? static_cast<int>(repeats.size()) : 0;
      const nlohmann::json& degenerate = step.result.value("degenerate", nlohmann::json());
      t.degenerate |= degenerate.is_array() && !degenerate.empty();
      const nlohmann::json& wall = step.result.value("wall_s", nlohmann::json());
      if (wall.is_number()) {
        t.eval_seconds += wall.get<double>();
      }
    }
  }
  return t;
}

Result<std::vector<RunReport>> LoadRunReports(const std::string& path, std::optional<int64_t> run) {
  if (!std::filesystem::exists(path)) {
    return NotFound("no run database at " + path);
  }
  ASSIGN_OR_RETURN(RunDb db, RunDb::Open(path));
  ASSIGN_OR_RETURN(std::vector<RunInfo> runs, db.Runs());
  // Baselines by (task source, profile); the latest recorded wins.
  ASSIGN_OR_RETURN(std::vector<nlohmann::json> baselines, db.Baselines());
  std::map<std::pair<std::string, std::string>, nlohmann::json> baseline_of;
  for (const nlohmann::json& b : baselines) {
    if (b.is_object()) {
      baseline_of[{TextOr(b, "task_sha256", ""), TextOr(b, "profile", "")}] = b;
    }
  }
  std::vector<RunReport> reports;
  for (const RunInfo& info : runs) {
    if (run && info.id != *run) {
      continue;
    }
    RunReport report{.run = info};
    std::string profile;
    bool size_specific_best = false;
    RETURN_IF_ERROR(ReadStoredJson(RunsRow(info.id), "options", [&] {
      profile = info.options.value("profile", "strict");
      size_specific_best = info.options.value("size_specific_best", false);
      return Status::Ok();
    }));
    ASSIGN_OR_RETURN(std::vector<TaskInfo> tasks, db.Tasks(info.id));
    SpendingTally tally(info.model, size_specific_best);
    for (const TaskInfo& task : tasks) {
      ASSIGN_OR_RETURN(std::vector<StepRecord> steps, db.Steps(info.id, task.name));
      report.tasks.push_back(OutcomeOf(task.name, steps, size_specific_best));
      tally.AddTask(task.name, steps);
      RETURN_IF_ERROR(ReadStoredJson(TaskFilesRow(info.id, task.name), "file", [&] {
        const SourceFile stored = TaskFromStored(task.name, task.source, task.file);
        if (stored.workloads_total > stored.workloads.size()) {
          report.tasks.back().workloads = stored.workloads.size();
          report.tasks.back().workloads_total = stored.workloads_total;
        }
        return Status::Ok();
      }));
      auto found = baseline_of.find({Sha256Hex(task.source), profile});
      if (found != baseline_of.end()) {
        report.tasks.back().eager_ms = Number(found->second, "eager_ms");
        report.tasks.back().compiled_ms = Number(found->second, "compiled_ms");
      }
      report.eval_hours += report.tasks.back().eval_seconds / 3600;
    }
    report.metrics = ComputeMetrics(report.tasks);
    ASSIGN_OR_RETURN(report.cost, db.CallTotals(info.id));
    ASSIGN_OR_RETURN(report.spending, tally.Finish(db, info.id, report.cost));
    reports.push_back(std::move(report));
  }
  if (run && reports.empty()) {
    return NotFound(fmt::format("no run {} in {}", *run, path));
  }
  return reports;
}

std::string EnvironmentLine(const RunInfo& run) {
  const nlohmann::json env = run.options.value("environment", nlohmann::json::object());
  const std::string profile = TextOr(run.options, "profile", "strict");
  if (!env.is_object() || env.empty()) {
    return fmt::format("device not recorded (a run from an earlier version), profile {}", profile);
  }
  const int shrink = Shrink(run);
  return fmt::format("{}, torch {}, triton {}, Python {}, profile {}{}", TextOr(env, "device", "?"),
                     TextOr(env, "torch", "?"), TextOr(env, "triton", "?"),
                     TextOr(env, "python", "?"), TextOr(env, "profile", profile),
                     shrink > 1 ? fmt::format(", sizes shrunk {}x (--shrink: a smoke test, not "
                                              "the tasks' own sizes)",
                                              shrink)
                                : "");
}

int Shrink(const RunInfo& run) {
  const nlohmann::json eval = run.options.value("eval", nlohmann::json::object());
  const auto it = eval.is_object() ? eval.find("shrink") : eval.end();
  return eval.is_object() && it != eval.end() && it->is_number_integer() ? it->get<int>() : 1;
}

bool CpuRun(const RunInfo& run) {
  const nlohmann::json env = run.options.value("environment", nlohmann::json::object());
  return TextOr(env, "device_kind", "") == "cpu";
}

nlohmann::json ReportJson(const std::vector<RunReport>& reports) {
  nlohmann::json runs = nlohmann::json::array();
  for (const RunReport& r : reports) {
    nlohmann::json tasks = nlohmann::json::array();
    for (const TaskOutcome& t : r.tasks) {
      tasks.push_back({{"task", t.task},
                       {"correct", t.correct},
                       {"speedup", Optional(t.speedup)},
                       {"scope", t.scope},
                       {"degenerate", t.degenerate},
                       {"seeded", t.seeded},
                       {"seed_speedup", Optional(t.seed_speedup)},
                       {"over_seed", t.seed_speedup && t.speedup && *t.seed_speedup > 0
                                         ? nlohmann::json(*t.speedup / *t.seed_speedup)
                                         : nlohmann::json(nullptr)},
                       {"steps", t.steps},
                       {"llm_repeats", t.llm_repeats},
                       {"workloads", t.workloads_total > 0 ? nlohmann::json(t.workloads)
                                                           : nlohmann::json(nullptr)},
                       {"workloads_total", t.workloads_total > 0 ? nlohmann::json(t.workloads_total)
                                                                 : nlohmann::json(nullptr)},
                       {"best_by_step", t.best_by_step},
                       {"eager_ms", Optional(t.eager_ms)},
                       {"compiled_ms", Optional(t.compiled_ms)},
                       {"vs_compile", Optional(t.vs_compile())}});
    }
    runs.push_back({{"run", r.run.id},
                    {"method", r.run.method},
                    {"model", r.run.model},
                    {"status", WorkStatusName(r.run.status)},
                    {"environment", EnvironmentLine(r.run)},
                    {"cpu_run", CpuRun(r.run)},
                    {"shrink", Shrink(r.run)},
                    {"metrics", MetricsJson(r.metrics)},
                    {"mean_best_by_step", MeanBestByStep(r.tasks)},
                    {"cost", r.cost},
                    {"spending", SpendingJson(r.spending)},
                    {"eval_hours", r.eval_hours},
                    {"tasks", tasks}});
  }
  nlohmann::json methods = nlohmann::json::array();
  for (const auto& [method, metrics] : ByMethod(reports)) {
    methods.push_back({{"method", method}, {"metrics", MetricsJson(metrics)}});
  }
  return {{"runs", runs}, {"methods", methods}};
}

std::string ReportMarkdown(const std::vector<RunReport>& reports) {
  const std::string header =
      "| {} | tasks | Acc | Speedup | Fast@1.2 | Fast@2 | geomean | compiled | correct | SOL |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n";
  std::string out;
  for (const RunReport& r : reports) {
    out += fmt::format(
        "Run {}: {}{}{}\n\n", r.run.id, EnvironmentLine(r.run),
        CpuRun(r.run) ? fmt::format(". **{}.**", kCpuRunBanner) : "",
        r.run.status == WorkStatus::kFinished
            ? ""
            : fmt::format(" **{} ({}).**", kUnfinishedRunBanner, WorkStatusName(r.run.status)));
  }
  out += "## By method\n\n" + fmt::format(fmt::runtime(header), "method");
  for (const auto& [method, metrics] : ByMethod(reports)) {
    out += MetricsRow(method, metrics);
  }
  out +=
      "\nSpeedup: mean of min(speedup, 10), wrong tasks 0. Fast@p: correct and strictly above "
      "p. geomean: correct tasks, uncapped. compiled/correct: shares of all steps. SOL: the best "
      "kernels' mean fraction of the speed of light, where a GPU measured it.\n";
  bool any_compile = false;
  for (const RunReport& r : reports) {
    any_compile |= r.metrics.compile_tasks > 0;
  }
  if (any_compile) {
    out +=
        "\n## Against torch.compile\n\n| method | tasks with a torch.compile baseline | "
        "faster than torch.compile | geomean over torch.compile |\n|---|---|---|---|\n";
    for (const auto& [method, m] : ByMethod(reports)) {
      out +=
          fmt::format("| {} | {} | {} | {} |\n", method, m.compile_tasks, Percent(m.beats_compile),
                      m.geomean_vs_compile ? Figure(*m.geomean_vs_compile) : "-");
    }
    out +=
        "\nBaselines: the task's Model timed alone, eager and torch.compile'd, cached per task, "
        "GPU model, software and profile. Over torch.compile: speedup x compile/eager.\n";
  }
  out += "\n## By run\n\n" + fmt::format(fmt::runtime(header), "run");
  for (const RunReport& r : reports) {
    out += MetricsRow(fmt::format("{} ({}, {})", r.run.id, r.run.method, r.run.model), r.metrics);
  }
  out +=
      "\n| run | fast_0 | fast_0.5 | fast_0.8 | fast_1 | fast_1.5 | fast_2 | LLM calls | "
      "tokens in/out | cost | eval hours | degenerate tasks |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const RunReport& r : reports) {
    out += fmt::format("| {} |", r.run.id);
    for (double p : FastPThresholds()) {
      out += fmt::format(" {} |", Percent(r.metrics.fast_p.at(p)));
    }
    out += fmt::format(" {} | {}/{} | {} | {:.3f} | {} |\n", r.cost.value("calls", int64_t{0}),
                       r.cost.value("input_tokens", int64_t{0}),
                       r.cost.value("output_tokens", int64_t{0}), CallCostText(r.cost),
                       r.eval_hours, r.metrics.degenerate_tasks);
  }
  for (const RunReport& r : reports) {
    out += fmt::format(
        "\n## Run {} tasks\n\n| task | best | steps | compiled | correct | eager ms | "
        "torch.compile ms | over torch.compile | note |\n|---|---|---|---|---|---|---|---|---|\n",
        r.run.id);
    for (const TaskOutcome& t : r.tasks) {
      const std::optional<double> vs = t.vs_compile();
      out +=
          fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", t.task,
                      t.speedup ? fmt::format("{:.3g}x{}", *t.speedup,
                                              t.scope == "call" ? "" : " in " + t.scope + " time")
                                : "wrong",
                      t.steps, t.compiled_steps, t.correct_steps, Ms(t.eager_ms), Ms(t.compiled_ms),
                      vs ? fmt::format("{:.3g}x", *vs) : "-", TaskNote(t));
    }
    out += SpendingMarkdown(r.run.id, r.spending);
  }
  return out;
}

std::string ReportCsv(const std::vector<RunReport>& reports) {
  std::string out =
      "run,method,model,task,correct,speedup,steps,compiled_steps,correct_steps,"
      "degenerate,eval_seconds,eager_ms,compiled_ms,vs_compile,environment,cpu_run,scope\n";
  for (const RunReport& r : reports) {
    for (const TaskOutcome& t : r.tasks) {
      auto figure = [](const std::optional<double>& v) {
        return v ? fmt::format("{:.6g}", *v) : std::string();
      };
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{:.3f},{},{},{},{},{},{}\n", r.run.id,
                         CsvField(r.run.method), CsvField(r.run.model), CsvField(t.task),
                         t.correct ? 1 : 0, figure(t.speedup), t.steps, t.compiled_steps,
                         t.correct_steps, t.degenerate ? 1 : 0, t.eval_seconds, figure(t.eager_ms),
                         figure(t.compiled_ms), figure(t.vs_compile()),
                         CsvField(EnvironmentLine(r.run)), CpuRun(r.run) ? 1 : 0, t.scope);
    }
  }
  return out;
}

}  // namespace adaexplore
