#include "eval/settings.h"

#include "eval/sanitizer.h"

namespace adaexplore {
namespace {

using EvalSetting = Setting<EvalProfile>;

template <typename T>
EvalSetting Bound(EvalSetting setting, T EvalProfile::*field) {
  BindField(setting, field);
  return setting;
}

// A setting that is one of the job's options (profile.job).
template <typename T>
EvalSetting JobBound(EvalSetting setting, T JobOptions::*field) {
  BindRef(
      setting, [field](auto& profile) -> auto& { return profile.job.*field; });
  return setting;
}

std::vector<EvalSetting> MakeTable() {
  EvalSetting precision{.name = "precision",
                        .kind = SettingKind::kChoice,
                        .flag = "--precision",
                        .job_option = "precision",
                        .fingerprint = true,
                        .default_text = "fp32",
                        .help = "dtype of weights and float inputs; sets the strict tolerances",
                        .choices = EnumNameList<Precision>()};
  BindRef(
      precision, [](auto& profile) -> auto& { return profile.job.precision; });
  precision.set = [](EvalProfile& p, const nlohmann::json& v) {
    SetPrecision(p, v.get<Precision>());
    return Status::Ok();
  };
  EvalSetting pytorch_compute{
      .name = "pytorch_compute",
      .kind = SettingKind::kChoice,
      .flag = "--pytorch-compute",
      .fingerprint = true,
      .default_text = "allowed",
      .help =
          "may PyTorch's compute kernels do the work: allowed (beside the candidate's own), "
          "forbidden, or unrestricted (pure PyTorch rewrites count)",
      .choices = EnumNameList<PytorchCompute>()};
  BindField(pytorch_compute, &EvalProfile::pytorch_compute);
  EvalSetting speedup_scope{
      .name = "speedup_scope",
      .kind = SettingKind::kChoice,
      .flag = "--speedup-scope",
      .job_option = "gpu_timeline",
      .fingerprint = true,
      .default_text = "gpu",
      .help =
          "what the speedup compares: gpu (the GPU's own time of every timed run, from the "
          "call's first GPU work to its last, CUPTI), call (the timed runs' events around the "
          "call, host launching included) or kernel (its kernels' device time in one traced "
          "call); the others are reported beside it",
      .choices = EnumNameList<TimingScope>()};
  BindField(speedup_scope, &EvalProfile::speedup_scope);
  return {
      precision,
      pytorch_compute,
      speedup_scope,
      JobBound({.name = "trials",
                .kind = SettingKind::kInteger,
                .flag = "--trials",
                .job_option = "trials",
                .fingerprint = true,
                .default_text = "5",
                .help = "correctness trials, each with its own inputs",
                .min = 1},
               &JobOptions::trials),
      JobBound({.name = "shrink",
                .kind = SettingKind::kInteger,
                .flag = "--shrink",
                .job_option = "shrink",
                .fingerprint = true,
                .default_text = "1",
                .help = "a smoke test on a machine too small for a task: its sizes above 64 "
                        "(module-level integers of a KernelBench task) divided by this, never "
                        "below 64; every result says so (1: the task's own sizes)",
                .min = 1},
               &JobOptions::shrink),
      JobBound({.name = "fp64_budget_s",
                .kind = SettingKind::kNumber,
                .flag = "--fp64-budget",
                .job_option = "fp64_budget_s",
                .fingerprint = true,
                .default_text = "60",
                .help = "seconds the float64 reference may take over all trials, judged from "
                        "the first; past it the task precision is used, with a note (0: no "
                        "bound)",
                .min = 0},
               &JobOptions::fp64_budget_s),
      JobBound({.name = "warmup_runs",
                .kind = SettingKind::kInteger,
                .flag = "--warmup",
                .job_option = "warmup_runs",
                .fingerprint = true,
                .default_text = "10",
                .help = "warm-up runs before timing",
                .min = 0},
               &JobOptions::warmup_runs),
      JobBound({.name = "timed_runs",
                .kind = SettingKind::kInteger,
                .flag = "--timed-runs",
                .job_option = "timed_runs",
                .fingerprint = true,
                .default_text = "100",
                .help = "timed runs: the fixed count, or at most this many when adaptive",
                .min = 1},
               &JobOptions::timed_runs),
      JobBound({.name = "min_timed_runs",
                .kind = SettingKind::kInteger,
                .flag = "--min-timed-runs",
                .job_option = "min_timed_runs",
                .fingerprint = true,
                .default_text = "20",
                .help = "timed runs at least, when the timing may stop early",
                .min = 1},
               &JobOptions::min_timed_runs),
      JobBound({.name = "timing_budget_ms",
                .kind = SettingKind::kNumber,
                .flag = "--timing-budget-ms",
                .job_option = "timing_budget_ms",
                .fingerprint = true,
                .default_text = "1000; paper, reference, kernelbench: 0",
                .help = "stop timing once the timed runs took this long in all (0: no budget)",
                .min = 0},
               &JobOptions::timing_budget_ms),
      JobBound({.name = "timing_precision",
                .kind = SettingKind::kNumber,
                .flag = "--timing-precision",
                .job_option = "timing_precision",
                .fingerprint = true,
                .default_text = "0.005; paper, reference, kernelbench: 0",
                .help = "stop timing once each median's 95% interval is within this share of it "
                        "(0: never; with no budget either, exactly --timed-runs runs)",
                .min = 0},
               &JobOptions::timing_precision),
      JobBound({.name = "reference_reuse_drift",
                .kind = SettingKind::kNumber,
                .flag = "--reference-reuse-drift",
                .job_option = "reference_reuse_drift",
                .fingerprint = true,
                .default_text = "0 (strict interleaves); paper, reference, kernelbench: 0.02",
                .help = "reuse a task's reference timing on a worker while a check of "
                        "--min-timed-runs runs finds its median within this share (0: time the "
                        "reference for every candidate)",
                .min = 0},
               &JobOptions::reference_reuse_drift),
      JobBound({.name = "head_start_max_us",
                .kind = SettingKind::kNumber,
                .flag = "--head-start-max-us",
                .job_option = "head_start_max_us",
                .fingerprint = true,
                .default_text = "10000; paper, reference, kernelbench: 0",
                .help = "let the head start (the L2 flush, then a spin) grow up to this many "
                        "microseconds: a timed run whose host outlasted it is not kept while it "
                        "can still grow (0: the flush alone, every run kept)",
                .min = 0},
               &JobOptions::head_start_max_us),
      JobBound({.name = "clean_reference_timing",
                .kind = SettingKind::kBoolean,
                .flag = "--clean-reference-timing",
                .job_option = "clean_reference_timing",
                .fingerprint = true,
                .default_text = "true; reference, kernelbench: false",
                .help = "also time the reference before any candidate is imported; where it ran "
                        "slower beside a candidate than that, the speedup is over the clean "
                        "timing (a candidate cannot slow the reference to gain)"},
               &JobOptions::clean_reference_timing),
      Bound({.name = "settle_limit",
             .kind = SettingKind::kNumber,
             .flag = "--settle-limit",
             .fingerprint = true,
             .default_text = "0.05; paper, reference, kernelbench: 0",
             .help = "withhold a speedup whose uncertainty (both medians' 95% half-widths, "
                     "summed) is over this share: the timing did not settle (0: always give it)",
             .min = 0},
            &EvalProfile::settle_limit),
      Bound({.name = "size_checks",
             .kind = SettingKind::kBoolean,
             .flag = "--size-checks",
             .fingerprint = true,
             .default_text = "true; paper, reference, kernelbench: false",
             .help = "check a correct KernelBench kernel again at two other size sets of the "
                     "task (smaller and odd, one larger), untimed: one wrong there is marked "
                     "correct at the task's sizes only, and a search does not take it as its "
                     "best unless --size-specific-best"},
            &EvalProfile::size_checks),
      Bound({.name = "sanitize",
             .kind = SettingKind::kBoolean,
             .flag = "--sanitize",
             .default_text = "false",
             .help = "run compute-sanitizer (--sanitizer-tools) on every correct kernel, inside "
                     "its sandbox: errors it finds, or a call it cannot finish, are a finding "
                     "(a search runs it on its new bests: --sanitize-best)"},
            &EvalProfile::sanitize),
      Bound({.name = "sanitizer_tools",
             .kind = SettingKind::kChoice,
             .flag = "--sanitizer-tools",
             .default_text = "memcheck,racecheck",
             .help = "compute-sanitizer's tools to run, in turn: memcheck (out-of-bounds and "
                     "misaligned accesses), racecheck (shared-memory races), synccheck, initcheck "
                     "(reads of memory never written), or all four",
             .choices = SanitizerToolChoices()},
            &EvalProfile::sanitizer_tools),
      Bound({.name = "sanitizer_timeout_s",
             .kind = SettingKind::kNumber,
             .flag = "--sanitizer-timeout",
             .default_text = "300",
             .help = "seconds each compute-sanitizer tool may take to run a kernel's call (its "
                     "start and compilation included)",
             .min = 0,
             .min_exclusive = true},
            &EvalProfile::sanitizer_timeout_s),
      Bound({.name = "timeout_s",
             .kind = SettingKind::kNumber,
             .flag = "--timeout",
             .default_text = "180",
             .help = "seconds per candidate, compile included (the job's limit)",
             .min = 0,
             .min_exclusive = true},
            &EvalProfile::timeout_s),
      JobBound({.name = "atol",
                .kind = SettingKind::kNumber,
                .flag = "--atol",
                .job_option = "atol",
                .fingerprint = true,
                .default_text = "1e-4 (fp32), 1e-2 (bf16, fp16); paper: 5e-2",
                .help = "absolute tolerance",
                .min = 0},
               &JobOptions::atol),
      JobBound({.name = "rtol",
                .kind = SettingKind::kNumber,
                .flag = "--rtol",
                .job_option = "rtol",
                .fingerprint = true,
                .default_text = "as atol",
                .help = "relative tolerance",
                .min = 0},
               &JobOptions::rtol),
      Bound({.name = "memory_limit_mb",
             .kind = SettingKind::kNumber,
             .flag = "--memory-limit-mb",
             .default_text = "0: a share of RAM",
             .help = "host memory of one evaluation (the job's limit)",
             .min = 0},
            &EvalProfile::memory_limit_mb),
      Bound({.name = "sandbox",
             .kind = SettingKind::kBoolean,
             .flag = "--sandbox",
             .fingerprint = true,
             .default_text = "true",
             .help = "run each candidate in its own sandbox: its own processes, no network, a "
                     "file system with only what it needs, writes only in its job folder, no "
                     "capabilities, a system-call filter (docs/harness.md)"},
            &EvalProfile::sandbox),
      Bound({.name = "require_sandbox",
             .kind = SettingKind::kBoolean,
             .flag = "--require-sandbox",
             .default_text = "true",
             .help = "refuse to evaluate unless every protection of the sandbox is in force "
                     "and verified here (--no-require-sandbox goes on without the missing ones, "
                     "said on the terminal and in every result's containment; --no-sandbox "
                     "turns the sandbox off)"},
            &EvalProfile::require_sandbox),
      JobBound({.name = "compile_baseline",
                .kind = SettingKind::kBoolean,
                .flag = "--compile-baseline",
                .job_option = "compile_baseline",
                .fingerprint = true,
                .default_text = "false",
                .help = "also time torch.compile(reference)"},
               &JobOptions::compile_baseline),
      JobBound({.name = "expert_baseline",
                .kind = SettingKind::kBoolean,
                .flag = "--expert-baseline",
                .job_option = "expert_baseline",
                .fingerprint = true,
                .default_text = "true",
                .help = "also time the task's expert kernel where it has one (FlashInfer's own "
                        "for its rmsnorm definitions, where flashinfer imports)"},
               &JobOptions::expert_baseline),
  };
}

}  // namespace

const std::vector<Setting<EvalProfile>>& EvalSettingTable() {
  static const std::vector<Setting<EvalProfile>> table = MakeTable();
  return table;
}

nlohmann::json EvalSettings(const EvalProfile& profile) {
  return SettingsJson(EvalSettingTable(), profile);
}

Status ApplyEvalSettings(const nlohmann::json& settings, EvalProfile& profile) {
  return ApplySettings(EvalSettingTable(), settings, profile, "evaluation");
}

}  // namespace adaexplore
