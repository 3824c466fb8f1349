#include "app/result_format.h"

#include <fmt/format.h>

#include <map>

#include "core/json_text.h"
#include "eval/workloads.h"

namespace adaexplore {
namespace {

constexpr size_t kMaxErrorLines = 40;

std::string Indent(const std::string& text, size_t max_lines) {
  std::string out;
  size_t start = 0;
  // Show the last lines: the end of a traceback is where the error is.
  std::vector<std::string> all;
  while (start <= text.size()) {
    const size_t end = text.find('\n', start);
    all.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) {
      break;
    }
    start = end + 1;
  }
  while (!all.empty() && all.back().empty()) {
    all.pop_back();
  }
  const size_t first = all.size() > max_lines ? all.size() - max_lines : 0;
  if (first > 0) {
    out += fmt::format("    [... {} earlier lines ...]\n", first);
  }
  for (size_t i = first; i < all.size(); ++i) {
    out += "    " + all[i] + "\n";
  }
  return out;
}

// A definition's workloads that are not correct, a line each (with -v): which, and why.
std::string FailingWorkloads(const nlohmann::json& facts) {
  if (!facts.is_object() || !facts.contains("workloads") || !facts["workloads"].is_array()) {
    return "";
  }
  const nlohmann::json& rows = facts["workloads"];
  std::string out;
  for (size_t i = 0; i < rows.size(); ++i) {
    const nlohmann::json& row = rows[i];
    if (!row.is_object() || row.value("verdict", "") == VerdictName(Verdict::kCorrect)) {
      continue;
    }
    const std::string reason = row.value("reason", "");
    out += fmt::format("    workload {}/{} ({}): {}: {}\n", i + 1, rows.size(), WorkloadLabel(row),
                       row.value("verdict", "?"), reason.substr(0, reason.find('\n')));
  }
  return out;
}

}  // namespace

std::string FormatHuman(const EvalResult& r, Detail detail) {
  std::string line = fmt::format("{}  [{}]  {}", r.kernel_path, r.task, VerdictName(r.verdict));
  if (r.verdict == Verdict::kCorrect && r.speedup && r.candidate_timing && r.reference_timing) {
    const Statistic statistic = r.statistic.value_or(Statistic::kMedian);
    if (r.scope == TimingScope::kKernel && r.candidate_kernel_us && r.reference_kernel_us) {
      line += fmt::format("  {:.3g}x in kernel time  ({:.4g} us vs eager {:.4g} us of kernels)",
                          *r.speedup, *r.candidate_kernel_us, *r.reference_kernel_us);
    } else if (r.scope == TimingScope::kGpu && r.candidate_gpu_timing && r.reference_gpu_timing) {
      const TimingStats& c = *r.candidate_gpu_timing;
      line += fmt::format(
          "  {:.3g}x in GPU time  ({:.4g} us vs eager {:.4g} us, {} of {}, +-{:.1f}%)", *r.speedup,
          1e3 * c.Of(statistic), 1e3 * r.reference_gpu_timing->Of(statistic),
          StatisticWords(statistic), c.runs, 100 * c.median_halfwidth);
      if (r.speedup_call) {
        line += fmt::format("  {:.3g}x in call time", *r.speedup_call);
      }
      if (r.speedup_kernel) {
        line += fmt::format("  {:.3g}x in kernel time", *r.speedup_kernel);
      }
    } else {
      line += fmt::format("  {:.3g}x  (kernel {:.4g} ms vs eager {:.4g} ms, {} of {}, CV {:.1f}%)",
                          *r.speedup, r.candidate_timing->Of(statistic),
                          r.reference_timing->Of(statistic), StatisticWords(statistic),
                          r.candidate_timing->runs, 100 * r.candidate_timing->cv);
      if (r.speedup_kernel) {
        line += fmt::format("  {:.3g}x in kernel time", *r.speedup_kernel);
      }
    }
    if (r.speedup_compiled) {
      line += fmt::format("  {:.3g}x vs torch.compile", *r.speedup_compiled);
    }
    if (r.speedup_expert) {
      line += fmt::format("  {:.3g}x vs {}", *r.speedup_expert, r.expert);
    }
    if (!r.timing_meaningful) {
      line += "  [CPU interpreter: timing not meaningful]";
    }
    if (r.max_abs_err) {
      line += fmt::format("  max err {:.2g}", *r.max_abs_err);
    }
    if (r.speed_of_light_ms && r.timing_meaningful) {
      line += fmt::format("  speed-of-light bound {:.4g} ms", *r.speed_of_light_ms);
      if (r.sol_fraction) {
        line += fmt::format(" ({:.0f}% of it)", 100 * *r.sol_fraction);
      }
    }
    if (!r.profile_text.empty()) {
      line += "  [" + r.profile_text + "]";
    }
  } else {
    line += "  " + r.reason;
    if (r.verdict == Verdict::kCorrect && r.timing_unsettled) {
      line += "  no speedup: the timing did not settle";
    }
    if (r.verdict == Verdict::kCorrect && !r.timing_meaningful) {
      line += "  [CPU interpreter: timing not meaningful]";
    }
  }
  if (!r.degenerate.empty()) {
    std::string names;
    for (const std::string& n : r.degenerate) {
      names += (names.empty() ? "" : ", ") + n;
    }
    line += "  [degenerate task: " + names + " output(s) pass its checks]";
  }
  if (!r.findings.empty()) {
    std::string all;
    for (const std::string& f : r.findings) {
      all += (all.empty() ? "" : "; ") + f;
    }
    line += "  [findings: " + all + "]";
  }
  if (r.shrink > 1) {
    std::string sizes;
    for (const std::string& size : r.shrunk) {
      sizes += (sizes.empty() ? "" : ", ") + size;
    }
    line +=
        fmt::format("  [smoke test: sizes shrunk {}x ({}), not the task's own]", r.shrink, sizes);
  }
  if (r.cached) {
    line += "  (cached)";
  }
  line += "\n";
  if (detail == Detail::kFull && r.verdict != Verdict::kCorrect) {
    line += FailingWorkloads(r.facts);
  }
  if (detail == Detail::kFull && r.verdict != Verdict::kCorrect && !r.error_text.empty()) {
    line += Indent(r.error_text, kMaxErrorLines);
  }
  return line;
}

namespace {

// One line per correctness trial: which inputs, whether it passed, and its error figures.
nlohmann::json TrialSummaries(const nlohmann::json& facts) {
  nlohmann::json out = nlohmann::json::array();
  if (!facts.contains("trials") || !facts["trials"].is_array()) {
    return out;
  }
  for (const nlohmann::json& trial : facts["trials"]) {
    if (!trial.is_object()) {
      continue;
    }
    nlohmann::json summary = {{"index", trial.value("index", 0)},
                              {"distribution", trial.value("distribution", "")},
                              {"passed", trial.value("passed", false)}};
    if (trial.value("integrity", false)) {
      summary["integrity"] = true;  // Inputs beyond the profile's own trials.
    }
    nlohmann::json outputs = trial.value("outputs", nlohmann::json::array());
    if (outputs.is_array() && !outputs.empty() && outputs[0].is_object()) {
      const nlohmann::json values = outputs[0].value("values", nlohmann::json::object());
      for (const char* key : {"max_abs_err", "max_rel_err", "violations", "numel", "ref_max_abs"}) {
        if (values.is_object() && values.contains(key)) {
          summary[key] = values[key];
        }
      }
    }
    out.push_back(std::move(summary));
  }
  return out;
}

}  // namespace

nlohmann::json ResultJson(const EvalResult& r) {
  nlohmann::json j = ToJson(r);
  // The raw facts (per-run samples, per-trial detail) are for the run database; --json keeps a
  // readable summary of where the time went.
  nlohmann::json details = nlohmann::json::object();
  if (r.facts.is_object()) {
    for (const char* key : {"phases", "gpu_busy_ms", "peak_rss_mb", "wall_s", "waited_s", "limit_s",
                            "notes", "kernel_trace", "reference_trace", "reference_cache",
                            "containment", "workloads", "expert"}) {
      if (r.facts.contains(key)) {
        details[key] = r.facts[key];
      }
    }
    if (r.facts.contains("reference") && r.facts["reference"].is_object()) {
      details["reference"] = r.facts["reference"];
    }
    details["trials"] = TrialSummaries(r.facts);
    // Where the trials' values were compared, and what the judge cost (its values are the trials').
    if (r.facts.contains("judge") && r.facts["judge"].is_object()) {
      nlohmann::json judge = r.facts["judge"];
      const size_t judged =
          judge.contains("trials") && judge["trials"].is_array() ? judge["trials"].size() : 0;
      judge.erase("trials");
      judge["judged_trials"] = judged;
      details["judge"] = judge;
    }
    // How many runs the timing made, why it stopped there (stopping.py), the check of a reused
    // reference timing (measure.py), the GPU's clocks before and after (clocks.py), and the runs
    // whose host outlasted the head start (head_start.py).
    if (r.facts.contains("timing") && r.facts["timing"].is_object()) {
      nlohmann::json runs = nlohmann::json::object();
      for (const char* key : {"warmup_runs", "timed_runs", "max_timed_runs", "stopped",
                              "reference_stopped", "reference_check", "gpu_state", "host_late_runs",
                              "host_late_dropped", "head_start_us"}) {
        if (r.facts["timing"].contains(key)) {
          runs[key] = r.facts["timing"][key];
        }
      }
      details["timing"] = runs;
    }
  }
  j.erase("facts");
  j["details"] = details;
  return j;
}

std::string FormatJsonLine(const EvalResult& r) { return JsonText(ResultJson(r)) + "\n"; }

std::string FormatSummary(const std::vector<EvalResult>& results) {
  std::map<std::string, int> counts;
  for (const EvalResult& r : results) {
    ++counts[std::string(VerdictName(r.verdict))];
  }
  std::string parts;
  for (Verdict v : {Verdict::kCorrect, Verdict::kIncorrect, Verdict::kRejected,
                    Verdict::kCompileError, Verdict::kRuntimeError, Verdict::kTimeout,
                    Verdict::kCrash, Verdict::kTaskError, Verdict::kError}) {
    const int n = counts[std::string(VerdictName(v))];
    if (n > 0) {
      parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", n, VerdictName(v));
    }
  }
  return fmt::format("{} candidate{}: {}\n", results.size(), results.size() == 1 ? "" : "s", parts);
}

}  // namespace adaexplore
