#include "eval/baseline.h"

#include <fmt/format.h>

#include "core/hash.h"
#include "core/json_text.h"
#include "core/nonce.h"

namespace adaexplore {
namespace {

constexpr size_t kBaselineIdLength = 16;
constexpr size_t kBaselineNonceBytes = 16;

// The settings timing depends on; the checks' settings do not change a baseline.
nlohmann::json TimingFingerprint(const EvalProfile& p, bool with_compile) {
  return {{"precision", p.job.precision},
          {"allow_tf32", p.job.allow_tf32},
          {"warmup_runs", p.job.warmup_runs},
          {"timed_runs", p.job.timed_runs},
          {"min_timed_runs", p.job.min_timed_runs},
          {"timing_budget_ms", p.job.timing_budget_ms},
          {"timing_precision", p.job.timing_precision},
          {"fresh_inputs", p.job.fresh_inputs_per_run},
          {"l2_flush", p.job.l2_flush},
          {"generate_on", p.job.generate_on},
          {"statistic", p.statistic},
          {"compile", with_compile}};
}

std::optional<double> Figure(const std::optional<TimingStats>& stats, Statistic statistic) {
  if (!stats || stats->runs == 0) {
    return std::nullopt;
  }
  return stats->Of(statistic);
}

std::optional<TimingStats> Stats(const nlohmann::json& samples) {
  if (!samples.is_array() || samples.empty()) {
    return std::nullopt;
  }
  std::vector<double> ms;
  for (const nlohmann::json& s : samples) {
    if (!s.is_number()) {
      return std::nullopt;
    }
    ms.push_back(s.get<double>());
  }
  return ComputeTimingStats(std::move(ms));
}

}  // namespace

std::optional<double> Baseline::eager_ms() const { return Figure(eager, statistic); }
std::optional<double> Baseline::compiled_ms() const { return Figure(compiled, statistic); }

nlohmann::json ToJson(const Baseline& b) {
  auto stats = [](const std::optional<TimingStats>& s) {
    return s ? ToJson(*s) : nlohmann::json(nullptr);
  };
  auto figure = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  return {{"task", b.task},
          {"task_sha256", b.task_sha256},
          {"key", b.key},
          {"device", b.device},
          {"software", b.software},
          {"profile", b.profile},
          {"statistic", b.statistic},
          {"eager", stats(b.eager)},
          {"compiled", stats(b.compiled)},
          {"eager_ms", figure(b.eager_ms())},
          {"compiled_ms", figure(b.compiled_ms())},
          {"error", b.error},
          {"notes", b.notes},
          {"measured_at", b.measured_at}};
}

Baseline BaselineFromJson(const nlohmann::json& j) {
  Baseline b;
  if (!j.is_object()) {
    return b;
  }
  b.task = j.value("task", "");
  b.task_sha256 = j.value("task_sha256", "");
  b.key = j.value("key", "");
  b.device = j.value("device", "");
  b.software = j.value("software", "");
  b.profile = j.value("profile", "");
  b.statistic = EnumFromName<Statistic>(j.value("statistic", "")).value_or(Statistic::kMedian);
  if (j.contains("eager") && j["eager"].is_object()) {
    b.eager = TimingStatsFromJson(j["eager"]);
  }
  if (j.contains("compiled") && j["compiled"].is_object()) {
    b.compiled = TimingStatsFromJson(j["compiled"]);
  }
  b.error = j.value("error", "");
  if (j.contains("notes") && j["notes"].is_array()) {
    for (const nlohmann::json& n : j["notes"]) {
      if (n.is_string()) {
        b.notes.push_back(n.get<std::string>());
      }
    }
  }
  b.measured_at = j.value("measured_at", int64_t{0});
  return b;
}

std::string BaselineKey(const std::string& task_sha256, const EvalProfile& profile,
                        bool with_compile, const WorkerHello& hello) {
  return Sha256Builder()
      .Add("adaexplore-baseline-v1")
      .Add(task_sha256)
      .Add(JsonText(TimingFingerprint(profile, with_compile)))
      .Add(hello.Fingerprint())
      .Add(hello.python)
      .Finish();
}

nlohmann::json BaselineJob(const SourceFile& task, const EvalProfile& profile, bool with_compile,
                           DeviceKind device_kind) {
  EvalJob job{.id = "baseline-" + task.sha256.substr(0, kBaselineIdLength),
              .nonce = RandomHex(kBaselineNonceBytes),
              .task = ToTaskText(task),
              .candidate = {"no_candidate.py", ""},
              .options = profile.ToJobOptions(device_kind),
              .timeout_s = profile.timeout_s,
              .memory_limit_mb = profile.memory_limit_mb};
  job.options.baseline = true;
  job.options.compile_baseline = with_compile;
  job.options.seed =
      profile.seed ? *profile.seed : std::stoull(task.sha256.substr(0, 12), nullptr, 16);
  return ToJson(job);
}

void ReadBaselineFacts(const nlohmann::json& facts, Baseline& b) {
  if (const Status valid = ValidateFacts(facts); !valid.ok()) {
    b.error = "malformed facts from the worker: " + valid.message();
    return;
  }
  if (facts.contains("notes") && facts["notes"].is_array()) {
    for (const nlohmann::json& n : facts["notes"]) {
      if (n.is_string()) {
        b.notes.push_back(n.get<std::string>());
      }
    }
  }
  const FactStatus status = *StatusOf(facts);
  const nlohmann::json timing = facts.value("timing", nlohmann::json());
  if (status == FactStatus::kOk && timing.is_object()) {
    b.eager = Stats(timing.value("reference_ms", nlohmann::json()));
    b.compiled = Stats(timing.value("compiled_reference_ms", nlohmann::json()));
  }
  if (!b.eager) {
    const nlohmann::json error = facts.value("error", nlohmann::json());
    const std::string message = error.is_object() ? error.value("message", "") : "";
    b.error = fmt::format("{}{}{}", FactStatusName(status), message.empty() ? "" : ": ",
                          message.substr(0, 500));
  }
}

}  // namespace adaexplore
