// bench/eval_throughput: evaluation throughput of the long-lived worker pool (one zygote per
// GPU, a forked child per candidate) against the pattern peers use, a fresh Python process per
// candidate, on the same candidates in the same run.
//
// For each mode it reports candidates per minute and the overhead per candidate beyond the GPU
// time the evaluation itself needs (the candidate's and the reference's runs, measured by the
// worker as gpu_busy_ms), the share of the wall time the GPU was busy, each phase's median and
// how often the worker's reference cache answered. Both modes run the very same job messages;
// the fresh-process mode through `python -m adaexplore_worker.oneshot`, which has no reference
// cache (the pattern it stands for has none). Each mode gets its own cold Triton cache. The pool
// runs first, so a time limit on the whole benchmark cuts the baseline, not the figure the
// benchmark is for.
//
//   eval_throughput --tasks-dir T --kernels-dir K [--fresh-limit N] [--json-out F]

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "bench/bench_common.h"
#include "core/clock.h"
#include "core/json_text.h"
#include "eval/classify.h"
#include "sys/fs.h"
#include "sys/process.h"
#include "sys/signals.h"

namespace adaexplore::bench {
namespace {

struct ModeFigures {
  std::string name;
  int candidates = 0;
  double wall_s = 0;      // Start of the mode (workers included) to the last result.
  double startup_s = 0;   // Pool only: until the workers were ready.
  double gpu_busy_s = 0;  // Sum over candidates.
  int correct = 0;
  std::map<std::string, std::vector<double>> phases;  // Seconds, per candidate that ran it.
  std::map<std::string, int> reference_cache;         // facts.reference_cache outcomes.

  void Add(const nlohmann::json& facts, Verdict verdict) {
    ++candidates;
    correct += verdict == Verdict::kCorrect ? 1 : 0;
    if (!facts.is_object()) {
      return;
    }
    gpu_busy_s += facts.value("gpu_busy_ms", 0.0) / 1000.0;
    const nlohmann::json p = facts.value("phases", nlohmann::json::object());
    for (const auto& [phase, seconds] : p.items()) {
      if (seconds.is_number()) {
        phases[phase].push_back(seconds.get<double>());
      }
    }
    ++reference_cache[facts.value("reference_cache", std::string("none"))];
  }
  double BusyShare() const { return wall_s > 0 ? gpu_busy_s / wall_s : 0; }
  double HitRate() const {
    const auto hits = reference_cache.find("hit");
    return candidates > 0 && hits != reference_cache.end()
               ? static_cast<double>(hits->second) / candidates
               : 0;
  }
  nlohmann::json PhaseMedians() const {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [phase, samples] : phases) {
      std::vector<double> sorted = samples;
      std::ranges::sort(sorted);
      out[phase] = sorted[sorted.size() / 2];
    }
    return out;
  }

  double PerMinute() const { return candidates > 0 ? 60.0 * candidates / wall_s : 0; }
  double OverheadPerCandidate() const {
    return candidates > 0 ? (wall_s - gpu_busy_s) / candidates : 0;
  }
  nlohmann::json ToJson() const {
    return {{"mode", name},
            {"candidates", candidates},
            {"correct", correct},
            {"wall_s", wall_s},
            {"startup_s", startup_s},
            {"gpu_busy_s", gpu_busy_s},
            {"candidates_per_minute", PerMinute()},
            {"overhead_s_per_candidate", OverheadPerCandidate()},
            {"gpu_busy_share", BusyShare()},
            {"phase_median_s", PhaseMedians()},
            {"reference_cache", reference_cache},
            {"reference_cache_hit_rate", HitRate()}};
  }
};

Result<ModeFigures> RunFreshProcesses(const std::vector<EvalRequest>& requests,
                                      const Evaluator& evaluator, const WorkerSpec& worker,
                                      const EvalProfile& profile, const std::string& scratch) {
  ModeFigures figures{.name = "fresh process per candidate"};
  const TimePoint start = Clock::now();
  for (size_t i = 0; i < requests.size(); ++i) {
    const std::string job = fmt::format("{}/job{}.json", scratch, i);
    const std::string out = fmt::format("{}/result{}.json", scratch, i);
    RETURN_IF_ERROR(WriteFileAtomic(job, JsonText(evaluator.JobMessage(requests[i]))));
    SpawnOptions options{
        .argv = {worker.python, "-m", "adaexplore_worker.oneshot", "--job", job, "--out", out},
        .env_set = worker.env,
        .stdout_path = scratch + "/oneshot.log",
        .stderr_path = scratch + "/oneshot.log"};
    options.env_set.emplace_back("PYTHONPATH", worker.python_path);
    options.env_set.emplace_back("TRITON_CACHE_DIR", scratch + "/triton-fresh");
    if (worker.device_kind == DeviceKind::kCuda) {
      options.env_set.emplace_back("CUDA_VISIBLE_DEVICES", worker.visible_devices);
    } else {
      options.env_set.emplace_back("TRITON_INTERPRET", "1");
    }
    ASSIGN_OR_RETURN(Process process, Process::Spawn(options));
    process.Wait(Seconds(profile.timeout_s + 120));
    process.Terminate();
    Result<std::string> text = ReadFile(out);
    nlohmann::json facts =
        text.ok() ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    EvalResult result;
    Classify(facts, profile, result);
    figures.Add(facts, result.verdict);
    (void)std::fprintf(stderr, "  fresh %zu/%zu %s\n", i + 1, requests.size(),
                       requests[i].candidate.path.c_str());
  }
  figures.wall_s = ToSeconds(Clock::now() - start);
  return figures;
}

Result<int> Main(int argc, char** argv) {
  CLI::App app{"Evaluation throughput: worker pool vs a fresh process per candidate"};
  BenchFlags flags;
  int fresh_limit = 0;
  AddCommonFlags(app, flags);
  app.add_option("--fresh-limit", fresh_limit,
                 "Evaluate only the first N candidates in the fresh-process mode (0: all)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  InterruptGuard guard;
  ASSIGN_OR_RETURN(BenchSetup setup, SetUp(flags));
  const std::vector<EvalRequest>& requests = setup.requests;
  const Config& config = setup.config;
  const std::string scratch = setup.scratch->path();
  setup.workers.resize(1);  // One device for both modes: the comparison is per device.
  for (auto& [name, value] : setup.workers[0].env) {
    if (name == "TRITON_CACHE_DIR") {
      value = scratch + "/triton-pool";
    }
  }
  const std::vector<WorkerSpec>& specs = setup.workers;

  (void)std::fprintf(stderr, "worker-pool mode: %zu candidates\n", requests.size());
  ModeFigures pool{
      .name = fmt::format("worker pool ({} slots, {} ahead)", specs[0].slots, specs[0].ahead)};
  const TimePoint start = Clock::now();
  ASSIGN_OR_RETURN(std::unique_ptr<Evaluator> evaluator, setup.StartEvaluator(guard));
  pool.startup_s = ToSeconds(Clock::now() - start);
  ASSIGN_OR_RETURN(std::vector<EvalResult> results, evaluator->Run(requests, nullptr, &guard));
  pool.wall_s = ToSeconds(Clock::now() - start);
  for (const EvalResult& r : results) {
    pool.Add(r.facts, r.verdict);
  }

  // The same job messages, each in a fresh process; the pool's worker idles meanwhile.
  std::vector<EvalRequest> fresh_requests = requests;
  if (fresh_limit > 0 && static_cast<size_t>(fresh_limit) < fresh_requests.size()) {
    fresh_requests.resize(static_cast<size_t>(fresh_limit));
  }
  (void)std::fprintf(stderr, "fresh-process mode: %zu candidates\n", fresh_requests.size());
  ASSIGN_OR_RETURN(ModeFigures fresh, RunFreshProcesses(fresh_requests, *evaluator, specs[0],
                                                        config.profile, scratch));
  const double speedup = fresh.PerMinute() > 0 ? pool.PerMinute() / fresh.PerMinute() : 0;
  const std::string device =
      evaluator->workers().empty() ? "?" : evaluator->workers().front().device_name;
  std::printf("\neval_throughput on %s (%zu candidates, %d timed runs each)\n", device.c_str(),
              requests.size(), config.profile.job.timed_runs);
  std::printf("%-30s %10s %8s %10s %12s %14s %10s %16s %10s\n", "mode", "candidates", "correct",
              "wall s", "cand/min", "GPU busy s", "busy", "overhead s/cand", "ref hits");
  for (const ModeFigures* m : {&fresh, &pool}) {
    std::printf("%-30s %10d %8d %10.1f %12.2f %14.1f %9.0f%% %16.2f %9.0f%%\n", m->name.c_str(),
                m->candidates, m->correct, m->wall_s, m->PerMinute(), m->gpu_busy_s,
                100 * m->BusyShare(), m->OverheadPerCandidate(), 100 * m->HitRate());
  }
  for (const ModeFigures* m : {&fresh, &pool}) {
    std::printf("%s phase medians (s): %s\n", m->name.c_str(), JsonText(m->PhaseMedians()).c_str());
  }
  std::printf("pool startup (import torch, probe GPU) %.1f s; rate ratio %.2fx\n", pool.startup_s,
              speedup);
  RETURN_IF_ERROR(WriteJson(flags, {{"device", device},
                                    {"timed_runs", config.profile.job.timed_runs},
                                    {"fresh", fresh.ToJson()},
                                    {"pool", pool.ToJson()},
                                    {"rate_ratio", speedup}}));
  return 0;
}

}  // namespace
}  // namespace adaexplore::bench

int main(int argc, char** argv) {
  return adaexplore::bench::RunMain("eval_throughput", adaexplore::bench::Main, argc, argv);
}
