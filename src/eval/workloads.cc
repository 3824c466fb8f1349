#include "eval/workloads.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/hash.h"
#include "core/json_text.h"

namespace adaexplore {

std::vector<SourceFile> SplitWorkloads(const SourceFile& task) {
  std::vector<SourceFile> parts;
  parts.reserve(task.workloads.size());
  for (const nlohmann::json& workload : task.workloads) {
    parts.push_back(WorkloadPart(task, workload));
  }
  return parts;
}

SourceFile WorkloadPart(const SourceFile& task, const nlohmann::json& workload) {
  SourceFile part = task;
  part.workloads.clear();
  part.check_workloads.clear();
  part.workload = workload;
  part.sha256 = Sha256Hex(task.sha256 + "\nworkload " + JsonText(workload));
  return part;
}

std::string WorkloadLabel(const nlohmann::json& workload) {
  if (workload.contains("axes") && workload["axes"].is_object() && !workload["axes"].empty()) {
    std::string label;
    for (const auto& [axis, value] : workload["axes"].items()) {
      label += fmt::format("{}{}={}", label.empty() ? "" : ",", axis, JsonText(value));
    }
    return label;
  }
  return workload.value("uuid", std::string("?"));
}

namespace {

// The part whose verdict the task takes when not every workload is correct.
size_t Deciding(const std::vector<EvalResult>& parts) {
  for (Verdict first : {Verdict::kError, Verdict::kRejected, Verdict::kTaskError}) {
    for (size_t i = 0; i < parts.size(); ++i) {
      if (parts[i].verdict == first) {
        return i;
      }
    }
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].verdict != Verdict::kCorrect) {
      return i;
    }
  }
  return 0;
}

std::optional<double> Worst(std::optional<double> a, std::optional<double> b) {
  if (!a) {
    return b;
  }
  return b ? std::max(*a, *b) : a;
}

// The mean of a per-workload speedup when every workload has one; unset otherwise (a figure over
// some workloads would not be the task's).
std::optional<double> MeanOfAll(const std::vector<EvalResult>& parts,
                                std::optional<double> EvalResult::*figure) {
  double sum = 0;
  for (const EvalResult& p : parts) {
    if (!(p.*figure)) {
      return std::nullopt;
    }
    sum += *(p.*figure);
  }
  return sum / static_cast<double>(parts.size());
}

}  // namespace

EvalResult CombineWorkloads(const SourceFile& task, const std::vector<EvalResult>& parts) {
  EvalResult out;
  out.task = task.name;
  out.task_path = task.path;
  if (parts.empty()) {
    out.verdict = Verdict::kTaskError;
    out.reason = "the definition has no workloads";
    return out;
  }
  const EvalResult& first = parts.front();
  out.kernel_path = first.kernel_path;
  out.profile = first.profile;
  out.device = first.device;
  out.worker = first.worker;
  out.statistic = first.statistic;
  out.scope = first.scope;
  out.timing_meaningful = true;
  out.passed_trials = true;
  out.cached = true;
  bool all_correct = true;
  double speedup_sum = 0;
  Sha256Builder key;
  key.Add("adaexplore-workloads-v1");
  nlohmann::json rows = nlohmann::json::array();
  std::set<std::string> degenerate;
  std::set<std::string> findings;
  nlohmann::json notes = nlohmann::json::array();  // Each part's notes, once each, in order.
  nlohmann::json interface;                        // How the candidate is called (export).
  for (size_t i = 0; i < parts.size(); ++i) {
    const EvalResult& p = parts[i];
    const nlohmann::json workload =
        i < task.workloads.size() ? task.workloads[i] : nlohmann::json();
    all_correct = all_correct && p.verdict == Verdict::kCorrect && p.speedup.has_value();
    speedup_sum += p.speedup.value_or(0);
    out.timing_meaningful = out.timing_meaningful && p.timing_meaningful;
    out.passed_trials = out.passed_trials && p.passed_trials;
    if (p.scope != out.scope && p.speedup) {  // A part whose GPU timeline gave nothing.
      findings.insert(fmt::format(
          "workload {}'s speedup compares {} time, the first's {} time: their mean mixes the two",
          i + 1, EnumName(p.scope), EnumName(out.scope)));
    }
    out.cached = out.cached && p.cached;
    out.wall_s += p.wall_s;
    out.max_abs_err = Worst(out.max_abs_err, p.max_abs_err);
    out.max_rel_err = Worst(out.max_rel_err, p.max_rel_err);
    degenerate.insert(p.degenerate.begin(), p.degenerate.end());
    findings.insert(p.findings.begin(), p.findings.end());
    if (p.facts.is_object() && p.facts.contains("notes") && p.facts["notes"].is_array()) {
      for (const nlohmann::json& note : p.facts["notes"]) {
        if (std::find(notes.begin(), notes.end(), note) == notes.end()) {
          notes.push_back(note);
        }
      }
    }
    if (interface.is_null() && p.facts.is_object() && p.facts.contains("interface")) {
      interface = p.facts["interface"];  // The same candidate, called the same way in each.
    }
    key.Add(p.cache_key);
    nlohmann::json row = {
        {"uuid", workload.value("uuid", std::string())},
        {"axes", workload.value("axes", nlohmann::json::object())},
        {"verdict", VerdictName(p.verdict)},
        {"reason", p.reason},
        {"cache_key", p.cache_key},
        {"speedup", p.speedup ? nlohmann::json(*p.speedup) : nlohmann::json()},
        {"scope", EnumName(p.scope)},
        {"speedup_call", p.speedup_call ? nlohmann::json(*p.speedup_call) : nlohmann::json()}};
    if (p.candidate_gpu_timing) {
      row["candidate_gpu"] = ToJson(*p.candidate_gpu_timing);
    }
    if (p.reference_gpu_timing) {
      row["reference_gpu"] = ToJson(*p.reference_gpu_timing);
    }
    if (p.candidate_timing) {
      row["candidate"] = ToJson(*p.candidate_timing);
    }
    if (p.reference_timing) {
      row["reference"] = ToJson(*p.reference_timing);
    }
    if (p.expert_timing) {
      row["expert"] = ToJson(*p.expert_timing);
      row["expert_name"] = p.expert;
      row["speedup_expert"] = p.speedup_expert ? nlohmann::json(*p.speedup_expert) : nullptr;
    }
    if (p.max_abs_err) {
      row["max_abs_err"] = *p.max_abs_err;
    }
    if (p.max_rel_err) {
      row["max_rel_err"] = *p.max_rel_err;
    }
    rows.push_back(std::move(row));
  }
  out.cache_key = key.Finish();
  out.degenerate.assign(degenerate.begin(), degenerate.end());
  out.findings.assign(findings.begin(), findings.end());
  out.facts = {{"status", "ok"}, {"workloads", rows}, {"notes", notes}};
  if (!interface.is_null()) {
    out.facts["interface"] = interface;
  }
  const size_t n = parts.size();
  if (all_correct) {
    out.verdict = Verdict::kCorrect;
    out.speedup = speedup_sum / static_cast<double>(n);
    out.speedup_compiled = MeanOfAll(parts, &EvalResult::speedup_compiled);
    out.speedup_call = MeanOfAll(parts, &EvalResult::speedup_call);
    out.speedup_kernel = MeanOfAll(parts, &EvalResult::speedup_kernel);
    out.speedup_expert = MeanOfAll(parts, &EvalResult::speedup_expert);
    out.expert = out.speedup_expert ? first.expert : "";
    out.reason =
        fmt::format("correct on all {} workload(s); mean speedup {:.3g}x", n, *out.speedup);
    if (out.speedup_expert) {
      out.reason += fmt::format(", {:.3g}x over {}", *out.speedup_expert, out.expert);
    }
    return out;
  }
  const size_t at = Deciding(parts);
  const EvalResult& p = parts[at];
  const size_t failing =
      static_cast<size_t>(std::count_if(parts.begin(), parts.end(), [](const EvalResult& r) {
        return r.verdict != Verdict::kCorrect;
      }));
  out.verdict = p.verdict;
  out.check = p.check;
  out.error_text = p.error_text;
  out.stdout_tail = p.stdout_tail;
  out.stderr_tail = p.stderr_tail;
  out.reason = fmt::format(
      "workload {}/{} ({}): {}{}", at + 1, n,
      WorkloadLabel(at < task.workloads.size() ? task.workloads[at] : nlohmann::json()), p.reason,
      failing > 1 ? fmt::format(" ({} of {} workloads failed)", failing, n) : "");
  return out;
}

}  // namespace adaexplore
