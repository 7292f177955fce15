// TensorBoard's smoothing: an exponential moving average debiased for its start, so the first
// points are not pulled toward zero. weight 0 leaves the series as it is; 0.99 is very smooth.
// Non-finite values pass through as NaN and do not disturb the average.
#pragma once

#include <cmath>
#include <vector>

namespace traindeck {

// The running form, for series that grow: push() each new value, get its smoothed value.
class DebiasedEma {
 public:
  explicit DebiasedEma(double weight = 0) : m_weight(weight) {}

  double push(double v) {
    if (!std::isfinite(v)) return std::nan("");
    m_last = m_last * m_weight + (1 - m_weight) * v;
    m_debiasPower *= m_weight;
    return m_weight > 0 ? m_last / (1 - m_debiasPower) : v;
  }

 private:
  double m_weight;
  double m_last = 0;
  double m_debiasPower = 1;
};

template <class T>
std::vector<double> debiasedEma(const std::vector<T>& values, double weight) {
  std::vector<double> out;
  out.reserve(values.size());
  DebiasedEma ema(weight);
  for (const T& raw : values) out.push_back(ema.push(static_cast<double>(raw)));
  return out;
}

}  // namespace traindeck
