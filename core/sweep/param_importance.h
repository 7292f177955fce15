// How much of a sweep's metric each parameter explains on its own: a main-effect variance
// fraction in the spirit of fANOVA (Hutter et al., 2014), computed from the trials themselves
// instead of a fitted forest. Plain C++ so that the Sweep page and tests share one rule.
#pragma once

#include <limits>
#include <vector>

namespace traindeck {

// One parameter's value in each trial: a number (a range's or a list's value, or a category's
// index), NaN where the trial does not set it (a `when:` condition did not hold).
struct ImportanceColumn {
  std::vector<double> values;
  bool categorical = false;  // group by value; else by value, or by quantile bins when many values
};

struct ParamImportance {
  double fraction = std::numeric_limits<double>::quiet_NaN();  // 0..1; NaN: cannot tell (see below)
  int groups = 0;                                              // the groups compared
};

// Ranges are cut into at most this many bins of equal counts (fewer for few trials: N/4).
inline constexpr int kMaxImportanceBins = 5;

// For each column: trials are grouped by the parameter's value (a list), or by quantile bin (a
// range, so a log scale changes nothing); "not set" is a group of its own. The fraction is the
// variance of the groups' mean metric over the metric's total variance, corrected for chance as
// epsilon squared, (SS_between - (k-1) MS_within) / SS_total, and clipped to [0, 1], so a
// parameter that does nothing reads about 0 rather than (k-1)/(N-1). Trials whose metric is not
// finite are left out. NaN when fewer than k + 2 trials count or the metric does not vary.
// Main effects only: what two parameters do together, and noise, is 1 minus the sum.
std::vector<ParamImportance> mainEffectImportance(const std::vector<ImportanceColumn>& columns,
                                                  const std::vector<double>& metric);

}  // namespace traindeck
