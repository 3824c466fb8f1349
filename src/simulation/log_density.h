#pragma once

// A distribution of positive values (speedups, speed ratios) fitted to a sample: a Gaussian
// kernel density on their logarithms, Silverman's bandwidth. A draw is a sample value picked at
// random, times exp(bandwidth * a standard normal draw), so the simulator meets values near the
// real ones without replaying them exactly.

#include <random>
#include <vector>

namespace adaexplore {

class LogDensity {
 public:
  LogDensity() = default;
  // `values`: positive; others are left out.
  explicit LogDensity(const std::vector<double>& values);

  size_t size() const { return logs_.size(); }
  double bandwidth() const { return bandwidth_; }
  // A draw; 1 when the sample is empty.
  double Draw(std::mt19937_64& random) const;
  // The sample's own p-quantile (linear between order statistics); 1 when empty.
  double Quantile(double p) const;

 private:
  std::vector<double> logs_;  // Sorted.
  double bandwidth_ = 0;
};

// The p-quantile of `values` (linear between order statistics); 0 when empty.
double QuantileOf(std::vector<double> values, double p);

}  // namespace adaexplore
