// The trials the Sweep page's brushes let through: each brushed axis keeps the trials whose
// value lies in its range (a trial with no value there is left out). Ranges are in the axis's
// own values, so they stay put when new trials widen an axis. Every view asks passes().
#pragma once

#include <QMap>
#include <QPair>
#include <QString>
#include <vector>

#include "sweep_view.h"

namespace traindeck {

struct SweepFilter {
  QMap<QString, QPair<double, double>> brushes;  // axis key ("" for the metric) -> [low, high]

  bool isEmpty() const { return brushes.isEmpty(); }
  bool passes(const SweepView& view, const SweepTrialView& trial) const;
  // passes() for each trial of the view, in order.
  std::vector<bool> passing(const SweepView& view) const;
  int countPassing(const SweepView& view) const;
};

// What importance compares, one value per trial of the view (NaN: left out): trials that pass,
// each at the same rung, the highest that at least half of those with a rung result reached (and
// at least kMinRungTrials), so a trial pruned early is not compared with one that trained on;
// without rung results, each trial's latest metric (rung -1).
struct ImportanceBasis {
  static constexpr int kMinRungTrials = 4;
  std::vector<double> metric;
  int rung = -1;
  std::int64_t at = 0;  // the rung's tokens or steps
  int trials = 0;       // how many values are finite
};
ImportanceBasis importanceBasis(const SweepView& view, const std::vector<bool>& passing);

// The main-effect importance (core/sweep/param_importance.h) of each parameter axis over the
// basis, in the axes' order (the metric's axis left out).
std::vector<double> parameterImportance(const SweepView& view, const ImportanceBasis& basis);

}  // namespace traindeck
