// bench/integrity_overhead: what the integrity checks add to an evaluation. The same candidates
// are evaluated in three modes, each by a fresh worker pool on one device:
//
//   strict           the default profile, every check on;
//   strict, checks   the same profile without the checks that can be switched off: the
//     off            determinism re-run, poisoned memory, the null-kernel self-test, the
//                    re-validation of every timed output, the kernel trace, the stream-escape
//                    and speed-of-light verdicts, and rejection on static findings, patching,
//                    threads and flags;
//   paper            (--with-paper) the reference release's protocol (one input distribution, no
//   float64
//                    reference, one input set for all timed runs): for scale.
//
// A first pass in strict mode fills the Triton cache and is not reported, so compilation counts
// for no mode. Per mode it reports the evaluation wall time per candidate (the child's, without
// pool start-up), the phases (reference, correctness checks, timing) and the verdicts; the
// overhead is strict minus "checks off". Checks that are always on (the namespace guard, the
// audit hook, the static scan, aliasing, stride and mutation checks) are in both.
//
//   integrity_overhead --tasks-dir T --kernels-dir K [--slots 1] [--with-paper] [--json-out F]

#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <optional>

#include "bench/bench_common.h"
#include "eval/profile.h"
#include "sys/signals.h"

namespace adaexplore::bench {
namespace {

EvalProfile ChecksOff(EvalProfile p) {
  p.name = "strict-checks-off";
  SetIntegrityChecks(p, false);
  p.job.null_selftest = false;
  return p;
}

struct ModeFigures {
  std::string name;
  std::string device;  // The GPU's (or CPU's) name.
  int candidates = 0;
  int correct = 0;
  double eval_s = 0;  // Sum of the children's wall times.
  std::map<std::string, double> phases_s;
  std::map<std::string, std::string> verdicts;  // Kernel path -> verdict.

  double PerCandidate() const { return candidates > 0 ? eval_s / candidates : 0; }
  double Phase(const std::string& phase) const {
    auto it = phases_s.find(phase);
    return it == phases_s.end() || candidates == 0 ? 0 : it->second / candidates;
  }
  nlohmann::json ToJson() const {
    return {{"mode", name},         {"candidates", candidates},
            {"correct", correct},   {"eval_s", eval_s},
            {"phases_s", phases_s}, {"eval_s_per_candidate", PerCandidate()},
            {"verdicts", verdicts}};
  }
};

Result<ModeFigures> RunMode(const std::string& mode, const EvalProfile& profile,
                            const BenchSetup& setup, const InterruptGuard& guard) {
  (void)std::fprintf(stderr, "mode %s: %zu candidates\n", mode.c_str(), setup.requests.size());
  ASSIGN_OR_RETURN(
      std::unique_ptr<Evaluator> evaluator,
      Evaluator::Start({.profile = profile, .workers = setup.workers, .logger = setup.logger},
                       &guard));
  ASSIGN_OR_RETURN(std::vector<EvalResult> results,
                   evaluator->Run(setup.requests, nullptr, &guard));
  ModeFigures figures{.name = mode};
  if (!evaluator->workers().empty()) {
    figures.device = evaluator->workers().front().device_name;
  }
  for (const EvalResult& r : results) {
    ++figures.candidates;
    figures.correct += r.verdict == Verdict::kCorrect ? 1 : 0;
    figures.eval_s += r.wall_s;
    figures.verdicts[r.kernel_path] = std::string(VerdictName(r.verdict));
    if (r.facts.is_object() && r.facts.contains("phases") && r.facts["phases"].is_object()) {
      for (const auto& [phase, seconds] : r.facts["phases"].items()) {
        if (seconds.is_number()) {
          figures.phases_s[phase] += seconds.get<double>();
        }
      }
    }
  }
  return figures;
}

Result<int> Main(int argc, char** argv) {
  CLI::App app{"What the integrity checks add to an evaluation"};
  BenchFlags flags;
  bool with_paper = false;
  AddCommonFlags(app, flags);
  app.add_flag("--with-paper", with_paper, "Also evaluate in the paper profile, for scale");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  InterruptGuard guard;
  ASSIGN_OR_RETURN(BenchSetup setup, SetUp(flags));
  setup.workers.resize(1);  // One device: per-candidate figures without cross-GPU differences.
  const EvalProfile strict = setup.config.profile;
  ASSIGN_OR_RETURN(EvalProfile paper, ProfileByName("paper"));
  paper.job.timed_runs = strict.job.timed_runs;
  paper.memory_limit_mb = strict.memory_limit_mb;

  ASSIGN_OR_RETURN(ModeFigures warm, RunMode("warm-up (not reported)", strict, setup, guard));
  // Each mode's row is printed when it is done, so a run cut short still shows what it measured.
  std::printf("\nintegrity_overhead on %s (%d candidates, %d timed runs each, %d slot(s))\n",
              warm.device.c_str(), warm.candidates, strict.job.timed_runs,
              setup.workers.front().slots);
  std::printf("%-22s %8s %12s %12s %10s %10s\n", "mode", "correct", "eval s/cand", "reference s",
              "checks s", "timing s");
  auto print_row = [](const ModeFigures& m) {
    std::printf("%-22s %8d %12.2f %12.2f %10.2f %10.2f\n", m.name.c_str(), m.correct,
                m.PerCandidate(), m.Phase("reference"), m.Phase("check"), m.Phase("timing"));
    (void)std::fflush(stdout);
  };
  ASSIGN_OR_RETURN(ModeFigures off, RunMode("strict, checks off", ChecksOff(strict), setup, guard));
  print_row(off);
  ASSIGN_OR_RETURN(ModeFigures on, RunMode("strict", strict, setup, guard));
  print_row(on);
  std::optional<ModeFigures> release;
  if (with_paper) {
    ASSIGN_OR_RETURN(release, RunMode("paper", paper, setup, guard));
    print_row(*release);
  }

  int differing = 0;
  for (const auto& [kernel, verdict] : on.verdicts) {
    differing += off.verdicts[kernel] != verdict ? 1 : 0;
  }
  const std::string& device = on.device;
  const double overhead = on.PerCandidate() - off.PerCandidate();
  std::printf(
      "integrity overhead: %.2f s per candidate (%.0f%% of a strict evaluation); %d "
      "verdict(s) differ between strict and checks off\n",
      overhead, on.PerCandidate() > 0 ? 100.0 * overhead / on.PerCandidate() : 0.0, differing);
  RETURN_IF_ERROR(WriteJson(flags, {{"device", device},
                                    {"timed_runs", strict.job.timed_runs},
                                    {"warm_up", warm.ToJson()},
                                    {"strict", on.ToJson()},
                                    {"checks_off", off.ToJson()},
                                    {"paper", release ? release->ToJson() : nlohmann::json()},
                                    {"overhead_s_per_candidate", overhead},
                                    {"verdicts_differing", differing}}));
  return 0;
}

}  // namespace
}  // namespace adaexplore::bench

int main(int argc, char** argv) {
  return adaexplore::bench::RunMain("integrity_overhead", adaexplore::bench::Main, argc, argv);
}
