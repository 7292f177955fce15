// TensorBoard's smoothing: an exponential moving average debiased for its start, so the first
// points are not pulled toward zero. weight 0 leaves the series as it is; 0.99 is very smooth.
// Non-finite values pass through as NaN and do not disturb the average.
#pragma once

#include <cmath>
#include <vector>

namespace traindeck {

template <class T>
std::vector<double> debiasedEma(const std::vector<T>& values, double weight) {
  std::vector<double> out;
  out.reserve(values.size());
  double last = 0, debiasPower = 1;
  for (const T& raw : values) {
    const double v = static_cast<double>(raw);
    if (!std::isfinite(v)) {
      out.push_back(std::nan(""));
      continue;
    }
    last = last * weight + (1 - weight) * v;
    debiasPower *= weight;
    out.push_back(weight > 0 ? last / (1 - debiasPower) : v);
  }
  return out;
}

}  // namespace traindeck
