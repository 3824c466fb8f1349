#pragma once

// The metrics users compare methods by, over a suite of tasks, each task counted by its best
// kernel:
//   acc        share of tasks with a correct kernel
//   speedup    arithmetic mean over all tasks of min(speedup, 10), a task without a correct
//              kernel counting 0 (the AdaExplore paper's "Speedup")
//   fast_1.2   share of tasks correct with speedup strictly above 1.2 (the paper's Fast@1.2)
//   fast_2     the same above 2
//   geomean    geometric mean of the correct tasks' speedups (uncapped); none without any
//   fast_p     KernelBench's fast_p at p = 0, 0.5, 0.8, 1, 1.5, 2: share of tasks correct with
//              speedup strictly above p (fast_0 is the correctness rate)
//   sol        mean fraction of the speed of light of the best kernels that have one (GPU runs;
//              docs/profiling.md), over those tasks; none without any
//   against torch.compile, over the tasks whose baseline includes it (eval/baseline.h): the
//              share whose best kernel beats torch.compile strictly, and the geometric mean of
//              the correct ones' speedups over it
// and, over every step: the shares of kernels that compiled and that were correct.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace adaexplore {

struct TaskOutcome {
  std::string task;
  bool correct = false;
  std::optional<double> speedup;       // Of the best correct kernel.
  std::optional<double> sol_fraction;  // Of the best correct kernel, when measured.
  // What the best's speedup compares (its result's "scope"): "call" (the timed runs), or "kernel"
  // (the kernels' device time in one traced call).
  std::string scope = "call";
  bool degenerate = false;  // Trivial outputs pass the task's checks: a weak "correct".
  int steps = 0;
  int compiled_steps = 0;
  int correct_steps = 0;
  std::vector<double> best_by_step;  // Best correct speedup after each step; 0 before any.
  double eval_seconds = 0;           // Wall time of the task's evaluations.
  std::optional<double> eager_ms;    // The task's baseline timings, where measured.
  std::optional<double> compiled_ms;
  // Started from the user's kernel (run --seed-kernel): whether it was, and its speedup when it
  // was correct; the best's speedup over it is speedup / seed_speedup.
  bool seeded = false;
  std::optional<double> seed_speedup;
  int llm_repeats = 0;  // LLM replies that repeated a kernel of the task: not evaluated again.
  // Correct kernels wrong at another size set of the task (eval/size_checks.h), not counted as
  // its best in a run that does not let them be, and the fastest of them.
  int sizes_only_steps = 0;
  std::optional<double> sizes_only_speedup;
  int unsafe_steps = 0;  // Correct, and compute-sanitizer found errors in them (UnsafeStep).
  std::optional<double> unsafe_speedup;
  // A FlashInfer-Trace definition searched on a selection of its workloads (--workloads): how
  // many, of how many it has; 0 of 0 when on all of them.
  size_t workloads = 0;
  size_t workloads_total = 0;

  // The best kernel against torch.compile: speedup x compiled_ms / eager_ms (the speedup is
  // measured against the reference timed beside the kernel; the baseline's own ratio of
  // torch.compile to eager carries it over). Unset without a correct kernel or the timings, and
  // for a speedup in kernel time (the baseline's timings are call times).
  std::optional<double> vs_compile() const;
};

struct SuiteMetrics {
  int tasks = 0;
  double acc = 0;
  double speedup = 0;
  double fast_1_2 = 0;
  double fast_2 = 0;
  std::optional<double> geomean;
  std::optional<double> sol;        // Mean over sol_tasks.
  int sol_tasks = 0;                // Tasks whose best kernel has a speed-of-light fraction.
  std::map<double, double> fast_p;  // p -> share.
  double compile_rate = 0;          // Over steps.
  double correct_rate = 0;          // Over steps.
  int steps = 0;
  int degenerate_tasks = 0;
  int compile_tasks = 0;     // Tasks with a torch.compile baseline.
  double beats_compile = 0;  // Share of those whose best kernel beats it.
  std::optional<double> geomean_vs_compile;
};

inline constexpr double kSpeedupCap = 10.0;
inline const std::vector<double>& FastPThresholds() {
  static const std::vector<double> kThresholds = {0, 0.5, 0.8, 1, 1.5, 2};
  return kThresholds;
}

SuiteMetrics ComputeMetrics(const std::vector<TaskOutcome>& tasks);

// The mean over tasks of best_by_step at each step (a task that took fewer steps keeps its last
// value), capped at kSpeedupCap per task as `speedup` is.
std::vector<double> MeanBestByStep(const std::vector<TaskOutcome>& tasks);

}  // namespace adaexplore
