// One-way analysis of variance per parameter; the groups are found first (values or bins),
// then the sums of squares. Everything is O(N log N) per parameter: sweeps have 10-1000 trials.
#include "param_importance.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace traindeck {

namespace {

constexpr double kNotSet = std::numeric_limits<double>::infinity();  // the group key of NaN values

// The group key of each value: the value itself, or its bin's lower edge for a range of many
// values. Equal values always share a group.
std::vector<double> groupKeys(const ImportanceColumn& column, const std::vector<std::size_t>& rows) {
  std::vector<double> finite;
  for (std::size_t row : rows)
    if (std::isfinite(column.values[row])) finite.push_back(column.values[row]);
  std::sort(finite.begin(), finite.end());
  const std::set<double> distinct(finite.begin(), finite.end());
  const int bins = std::clamp(static_cast<int>(rows.size() / 4), 2, kMaxImportanceBins);
  std::vector<double> edges;  // lower edges of bins 1.. (bin 0 starts below everything)
  if (!column.categorical && static_cast<int>(distinct.size()) > bins)
    for (int b = 1; b < bins; ++b) edges.push_back(finite[finite.size() * static_cast<std::size_t>(b) / bins]);
  std::vector<double> keys;
  for (std::size_t row : rows) {
    const double v = column.values[row];
    if (!std::isfinite(v))
      keys.push_back(kNotSet);
    else if (edges.empty())
      keys.push_back(v);
    else
      keys.push_back(static_cast<double>(std::upper_bound(edges.begin(), edges.end(), v) - edges.begin()));
  }
  return keys;
}

ParamImportance oneWay(const std::vector<double>& keys, const std::vector<double>& y) {
  struct Group {
    double sum = 0;
    int n = 0;
  };
  std::map<double, Group> groups;
  double total = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    groups[keys[i]].sum += y[i];
    ++groups[keys[i]].n;
    total += y[i];
  }
  const double n = static_cast<double>(y.size());
  const double mean = total / n;
  double ssTotal = 0, ssBetween = 0;
  for (double v : y) ssTotal += (v - mean) * (v - mean);
  for (const auto& [key, g] : groups) ssBetween += g.n * std::pow(g.sum / g.n - mean, 2);
  ParamImportance out;
  out.groups = static_cast<int>(groups.size());
  const double k = out.groups;
  if (n < k + 2 || !(ssTotal > 1e-12 * std::max(1.0, mean * mean * n))) return out;
  const double msWithin = std::max(0.0, ssTotal - ssBetween) / (n - k);
  out.fraction = std::clamp((ssBetween - (k - 1) * msWithin) / ssTotal, 0.0, 1.0);
  return out;
}

}  // namespace

std::vector<ParamImportance> mainEffectImportance(const std::vector<ImportanceColumn>& columns,
                                                  const std::vector<double>& metric) {
  std::vector<std::size_t> rows;  // trials with a finite metric
  std::vector<double> y;
  for (std::size_t i = 0; i < metric.size(); ++i)
    if (std::isfinite(metric[i])) {
      rows.push_back(i);
      y.push_back(metric[i]);
    }
  std::vector<ParamImportance> out;
  for (const ImportanceColumn& column : columns) {
    if (column.values.size() != metric.size() || rows.empty()) {
      out.emplace_back();
      continue;
    }
    out.push_back(oneWay(groupKeys(column, rows), y));
  }
  return out;
}

}  // namespace traindeck
