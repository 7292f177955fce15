// TensorBoard's smoothing: an exponential moving average debiased for its start, so the first
// points are not pulled toward zero. weight 0 leaves the series as it is; 0.99 is very smooth.
// Non-finite values pass through as NaN and do not disturb the average. And smoothing in x
// units (xWindowEma), the same for runs logged at different intervals.
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
    // weight^n, until 1 - it is 1 to the last bit: then 0. Left alone it sinks to the least
    // denormal and stays there (times a weight over 0.5 rounds back to it), and each multiply
    // by a denormal costs ~100 cycles: 60 ms a column of a million points.
    m_debiasPower = m_debiasPower < 1e-20 ? 0 : m_debiasPower * m_weight;
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

// Smoothing in x units: an exponential moving average whose decay follows the x spacing, so a
// run logged every step and one logged every tenth smooth alike. Each point weighs the average
// before it by exp(-(x_k - x_{k-1}) / window) (the first point by its gap to the next), and the
// result is divided by the weight gathered so far, as DebiasedEma does. A point at the x of the
// one before adds nothing (no x has passed). On evenly spaced points
// it is DebiasedEma with weight exp(-spacing / window). window <= 0 leaves the values as they are.
template <class X, class Y>
std::vector<double> xWindowEma(const std::vector<X>& xs, const std::vector<Y>& ys, double window) {
  std::vector<double> out(ys.size(), std::nan(""));
  const auto finite = [&](std::size_t i) {
    return std::isfinite(static_cast<double>(xs[i])) && std::isfinite(static_cast<double>(ys[i]));
  };
  double sum = 0, weight = 0, lastX = std::nan("");
  for (std::size_t i = 0; i < ys.size() && i < xs.size(); ++i) {
    if (!finite(i)) continue;
    const double x = static_cast<double>(xs[i]), v = static_cast<double>(ys[i]);
    if (window <= 0) {
      out[i] = v;
      continue;
    }
    double gap = x - lastX;
    if (std::isnan(lastX)) {  // the first point: its gap to the next finite one
      gap = 0;
      for (std::size_t j = i + 1; j < ys.size() && j < xs.size(); ++j)
        if (finite(j)) {
          gap = static_cast<double>(xs[j]) - x;
          break;
        }
    }
    // A first point alone (or at the same x as the next) starts the average at its value.
    const double decay = std::isnan(lastX) && !(gap > 0) ? 0.0 : std::exp(-std::max(gap, 0.0) / window);
    sum = sum * decay + (1 - decay) * v;
    weight = weight * decay + (1 - decay);
    lastX = x;
    out[i] = weight > 0 ? sum / weight : v;
  }
  return out;
}

}  // namespace traindeck
