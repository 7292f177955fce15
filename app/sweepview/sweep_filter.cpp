#include "sweep_filter.h"

#include <cmath>
#include <map>

#include "sweep/param_importance.h"

namespace traindeck {

bool SweepFilter::passes(const SweepView& view, const SweepTrialView& trial) const {
  for (auto it = brushes.cbegin(); it != brushes.cend(); ++it) {
    const SweepAxis* axis = view.axis(it.key());
    if (axis == nullptr) continue;  // an axis gone (the sweep file changed) filters nothing
    const double v = axis->valueOf(trial);
    if (!std::isfinite(v) || v < it.value().first || v > it.value().second) return false;
  }
  return true;
}

std::vector<bool> SweepFilter::passing(const SweepView& view) const {
  std::vector<bool> out;
  for (const SweepTrialView& trial : view.trials) out.push_back(passes(view, trial));
  return out;
}

int SweepFilter::countPassing(const SweepView& view) const {
  int n = 0;
  for (bool p : passing(view)) n += p ? 1 : 0;
  return n;
}

ImportanceBasis importanceBasis(const SweepView& view, const std::vector<bool>& passing) {
  const auto passes = [&](std::size_t t) { return t >= passing.size() || passing[t]; };
  std::map<int, int> reached;  // rung -> trials with a finite result there
  int measured = 0;            // trials with any rung result
  for (std::size_t t = 0; t < view.trials.size(); ++t) {
    if (!passes(t) || view.trials[t].record.rungs.empty()) continue;
    ++measured;
    for (const RungResult& r : view.trials[t].record.rungs)
      if (std::isfinite(r.metric)) ++reached[r.rung];
  }
  ImportanceBasis basis;
  for (const auto& [rung, n] : reached)
    if (n >= ImportanceBasis::kMinRungTrials && 2 * n >= measured) basis.rung = rung;
  for (std::size_t t = 0; t < view.trials.size(); ++t) {
    double value = kNoValue;
    if (passes(t) && basis.rung < 0) value = view.trials[t].metric;
    if (passes(t) && basis.rung >= 0)
      if (const RungResult* r = view.trials[t].record.resultAt(basis.rung)) {
        value = r->metric;
        basis.at = r->at;
      }
    basis.metric.push_back(value);
    basis.trials += std::isfinite(value) ? 1 : 0;
  }
  return basis;
}

std::vector<double> parameterImportance(const SweepView& view, const ImportanceBasis& basis) {
  std::vector<ImportanceColumn> columns;
  for (const SweepAxis& axis : view.axes) {
    if (axis.isMetric()) continue;
    ImportanceColumn column{.values = {}, .categorical = axis.categorical};
    for (const SweepTrialView& trial : view.trials) column.values.push_back(axis.valueOf(trial));
    columns.push_back(std::move(column));
  }
  std::vector<double> out;
  for (const ParamImportance& p : mainEffectImportance(columns, basis.metric)) out.push_back(p.fraction);
  return out;
}

}  // namespace traindeck
