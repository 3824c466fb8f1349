#include "simulation/log_density.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace adaexplore {

namespace {

double SortedQuantile(const std::vector<double>& sorted, double p) {
  const double at = std::clamp(p, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const auto low = static_cast<size_t>(std::floor(at));
  const size_t high = std::min(low + 1, sorted.size() - 1);
  return sorted[low] + (sorted[high] - sorted[low]) * (at - static_cast<double>(low));
}

}  // namespace

double QuantileOf(std::vector<double> values, double p) {
  if (values.empty()) {
    return 0;
  }
  std::sort(values.begin(), values.end());
  return SortedQuantile(values, p);
}

LogDensity::LogDensity(const std::vector<double>& values) {
  for (double v : values) {
    if (v > 0 && std::isfinite(v)) {
      logs_.push_back(std::log(v));
    }
  }
  std::sort(logs_.begin(), logs_.end());
  if (logs_.size() < 2) {
    return;
  }
  const double n = static_cast<double>(logs_.size());
  const double mean = std::accumulate(logs_.begin(), logs_.end(), 0.0) / n;
  double squares = 0;
  for (double x : logs_) {
    squares += (x - mean) * (x - mean);
  }
  const double sd = std::sqrt(squares / (n - 1));
  const double iqr = SortedQuantile(logs_, 0.75) - SortedQuantile(logs_, 0.25);
  // Silverman's rule of thumb; the IQR alone is 0 for a sample mostly of one value.
  const double spread = iqr > 0 ? std::min(sd, iqr / 1.34) : sd;
  bandwidth_ = 0.9 * spread * std::pow(n, -0.2);
}

double LogDensity::Draw(std::mt19937_64& random) const {
  if (logs_.empty()) {
    return 1;
  }
  const size_t pick = std::uniform_int_distribution<size_t>(0, logs_.size() - 1)(random);
  const double jitter = std::normal_distribution<double>(0, 1)(random) * bandwidth_;
  return std::exp(logs_[pick] + jitter);
}

double LogDensity::Quantile(double p) const {
  return logs_.empty() ? 1 : std::exp(SortedQuantile(logs_, p));
}

}  // namespace adaexplore
