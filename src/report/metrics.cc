#include "report/metrics.h"

#include <algorithm>
#include <cmath>

namespace adaexplore {

std::optional<double> TaskOutcome::vs_compile() const {
  if (!correct || !speedup || !eager_ms || !compiled_ms || *eager_ms <= 0 || scope != "call") {
    return std::nullopt;
  }
  return *speedup * *compiled_ms / *eager_ms;
}

SuiteMetrics ComputeMetrics(const std::vector<TaskOutcome>& tasks) {
  SuiteMetrics m;
  m.tasks = static_cast<int>(tasks.size());
  if (tasks.empty()) {
    return m;
  }
  const double n = static_cast<double>(tasks.size());
  double log_sum = 0, log_sum_vs_compile = 0;
  int correct = 0, compiled_steps = 0, correct_steps = 0, correct_vs_compile = 0;
  for (double p : FastPThresholds()) {
    m.fast_p[p] = 0;
  }
  for (const TaskOutcome& t : tasks) {
    m.steps += t.steps;
    compiled_steps += t.compiled_steps;
    correct_steps += t.correct_steps;
    m.degenerate_tasks += t.degenerate;
    m.compile_tasks += t.compiled_ms.has_value();
    if (const std::optional<double> v = t.vs_compile()) {
      m.beats_compile += *v > 1.0;
      log_sum_vs_compile += std::log(std::max(*v, 1e-12));
      ++correct_vs_compile;
    }
    if (!t.correct || !t.speedup) {
      continue;
    }
    const double s = *t.speedup;
    ++correct;
    if (t.sol_fraction) {
      m.sol = m.sol.value_or(0) + *t.sol_fraction;
      ++m.sol_tasks;
    }
    m.speedup += std::min(s, kSpeedupCap);
    m.fast_1_2 += s > 1.2;
    m.fast_2 += s > 2.0;
    for (double p : FastPThresholds()) {
      m.fast_p[p] += s > p;
    }
    log_sum += std::log(std::max(s, 1e-12));
  }
  m.acc = correct / n;
  m.speedup /= n;
  m.fast_1_2 /= n;
  m.fast_2 /= n;
  for (auto& [p, share] : m.fast_p) {
    share /= n;
  }
  if (correct > 0) {
    m.geomean = std::exp(log_sum / correct);
  }
  if (m.sol_tasks > 0) {
    *m.sol /= m.sol_tasks;
  }
  if (m.compile_tasks > 0) {
    m.beats_compile /= m.compile_tasks;
  }
  if (correct_vs_compile > 0) {
    m.geomean_vs_compile = std::exp(log_sum_vs_compile / correct_vs_compile);
  }
  if (m.steps > 0) {
    m.compile_rate = static_cast<double>(compiled_steps) / m.steps;
    m.correct_rate = static_cast<double>(correct_steps) / m.steps;
  }
  return m;
}

std::vector<double> MeanBestByStep(const std::vector<TaskOutcome>& tasks) {
  size_t longest = 0;
  for (const TaskOutcome& t : tasks) {
    longest = std::max(longest, t.best_by_step.size());
  }
  std::vector<double> mean(longest, 0);
  if (tasks.empty()) {
    return mean;
  }
  for (const TaskOutcome& t : tasks) {
    for (size_t i = 0; i < longest; ++i) {
      const double value = t.best_by_step.empty()      ? 0
                           : i < t.best_by_step.size() ? t.best_by_step[i]
                                                       : t.best_by_step.back();
      mean[i] += std::min(value, kSpeedupCap);
    }
  }
  for (double& v : mean) {
    v /= static_cast<double>(tasks.size());
  }
  return mean;
}

}  // namespace adaexplore
