// Members are smoothed one by one (each over its own points), then resampled: the band shows
// the spread of what the lines show, not of the raw noise.
#include "compare_lines.h"

#include <algorithm>
#include <cmath>

#include "runs/comparison.h"
#include "smoothing.h"

namespace traindeck {

CompareLine compareRunLine(const Comparison& comparison, int run, const QString& metric, CompareX axis,
                           const CompareSmoothing& smoothing, bool smooth) {
  const ComparedRun& r = comparison.run(run);
  MetricSeries series = metricSeriesByName(comparison.store(run), comparison.scalars(run), metric, axis);
  CompareLine line{.name = r.label,
                   .color = comparison.runColour(run),
                   .x = std::move(series.x),
                   .y = std::move(series.y),
                   .rawY = {},
                   .low = {},
                   .high = {},
                   .member = false,
                   .owner = {.run = run, .group = -1}};
  if (!smooth || !smoothing.active()) return line;
  const std::vector<double> ys(line.y.begin(), line.y.end());
  const std::vector<double> smoothed =
      smoothing.kind == CompareSmoothing::Kind::Ema
          ? debiasedEma(ys, smoothing.weight)
          : xWindowEma(std::vector<double>(line.x.begin(), line.x.end()), ys, smoothing.window);
  line.rawY = std::move(line.y);
  line.y = QVector<double>(smoothed.begin(), smoothed.end());
  return line;
}

QVector<RunGroup> compareGroups(const Comparison& comparison, const GroupBy& by, QString* error) {
  QVector<GroupableRun> runs;
  for (int i = 0; i < comparison.size(); ++i) {
    const ComparedRun& r = comparison.run(i);
    runs.push_back({r.label, r.source, r.config});
  }
  return groupRuns(runs, by, error);
}

QColor compareGroupColour(const Comparison& comparison, const RunGroup& group, int groupIndex) {
  if (comparison.colourBy().kind == ColourBy::Kind::Run || group.members.isEmpty()) return comparisonColor(groupIndex);
  if (comparison.colourBy().kind == ColourBy::Kind::Metric) {  // the ramp at its members' mean
    double sum = 0;
    int counted = 0;
    for (int run : group.members)
      if (const double v = comparison.colourMetricValue(run); std::isfinite(v)) {
        sum += v;
        ++counted;
      }
    if (counted == 0) return missingValueColour();
    const double low = comparison.colours().low, high = comparison.colours().high;
    return rampColour(high > low ? (sum / counted - low) / (high - low) : 0.5);
  }
  const QColor shared = comparison.runColour(group.members.front());
  for (int run : group.members)
    if (comparison.runColour(run) != shared) return comparisonColor(groupIndex);
  return shared;
}

QVector<CompareLine> compareGroupLines(const Comparison& comparison, const RunGroup& group, int groupIndex,
                                       const QString& metric, CompareX axis, const CompareSmoothing& smoothing,
                                       bool smooth, const CompareGrouping& grouping) {
  QVector<CompareLine> lines;
  const QColor color = compareGroupColour(comparison, group, groupIndex);
  if (group.members.size() == 1 && !grouping.showMembers) {  // a group of one: no band to show
    CompareLine line = compareRunLine(comparison, group.members.front(), metric, axis, smoothing, smooth);
    line.name = QStringLiteral("%1 (1)").arg(group.name);
    line.color = color;
    line.owner.group = groupIndex;
    return {line};
  }
  QVector<MetricSeries> members;
  for (int run : group.members) {
    CompareLine member = compareRunLine(comparison, run, metric, axis, smoothing, smooth);
    members.push_back({member.x, member.y});
    if (!grouping.showMembers) continue;
    member.color = color;
    member.rawY.clear();
    member.member = true;
    member.owner.group = groupIndex;
    lines.push_back(std::move(member));
  }
  const GroupStats stats = groupStatistics(members, grouping.center, grouping.band, grouping.lo, grouping.hi);
  int most = 0;
  for (int n : stats.count) most = std::max(most, n);
  CompareLine center;
  center.name = QStringLiteral("%1 (%2)").arg(group.name).arg(group.members.size());
  center.color = color;
  center.x = stats.x;
  center.y = stats.center;
  center.low = stats.low;
  center.high = stats.high;
  center.owner = {.run = -1, .group = groupIndex};
  if (most > 0) lines.push_back(std::move(center));
  return lines;
}

double compareXSpan(const Comparison& comparison, CompareX axis) {
  double lo = INFINITY, hi = -INFINITY;
  for (int i = 0; i < comparison.size(); ++i)
    for (const QString& name : metricNamesOf(comparison.store(i), comparison.scalars(i))) {
      const MetricSeries s = metricSeriesByName(comparison.store(i), comparison.scalars(i), name, axis);
      bool any = false;
      for (double x : s.x)
        if (std::isfinite(x)) {
          lo = std::min(lo, x);
          hi = std::max(hi, x);
          any = true;
        }
      if (any) break;
    }
  return hi > lo ? hi - lo : 0;
}

}  // namespace traindeck
