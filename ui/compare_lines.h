// What the Compare page draws, built from a Comparison: one run's line of a metric (by name),
// smoothed as asked with its raw values kept, or one group's mean (or median) line with its band
// and, when asked, its members. Every run is smoothed alike, before any resampling.
#pragma once

#include <QString>
#include <QVector>

#include "compare_chart.h"
#include "runs/metric_series.h"
#include "runs/run_groups.h"

namespace traindeck {

class Comparison;

struct CompareSmoothing {
  enum class Kind { Ema, XWindow };
  Kind kind = Kind::Ema;
  double weight = 0.6;  // Ema: TensorBoard's weight, 0 = off
  double window = 0;    // XWindow: the window in x units (xWindowEma), 0 = off
  bool active() const { return kind == Kind::Ema ? weight > 0 : window > 0; }
};

struct CompareGrouping {
  GroupBy by;
  GroupCenter center = GroupCenter::Mean;
  GroupBand band = GroupBand::MinMax;
  bool showMembers = false;
  // The x range the band's common grid covers (the charts' visible range once the user zooms or
  // pans, so a close look gets the grid's every point); lo > hi: the members' whole span.
  double lo = 1, hi = 0;
  bool active() const { return by.kind != GroupBy::Kind::None; }
};

// The run's line in its colour (Comparison::runColour); smoothed (rawY the values as read) when `smooth` and the
// smoothing is on.
CompareLine compareRunLine(const Comparison& comparison, int run, const QString& metric, CompareX axis,
                           const CompareSmoothing& smoothing, bool smooth);
// The groups of the compared runs; a bad pattern falls back to a group per run, `error` says why.
QVector<RunGroup> compareGroups(const Comparison& comparison, const GroupBy& by, QString* error = nullptr);
// A group's colour: coloured by a metric, the ramp at its members' mean value (grey when none has
// one); coloured by a key or by hand, the colour its members share when they all have the same;
// else comparisonColor(groupIndex).
QColor compareGroupColour(const Comparison& comparison, const RunGroup& group, int groupIndex);
// A group's lines: its members first (faint, when asked), then its centre line with the band,
// named "group (n)" in compareGroupColour. A group of one run without members asked is that
// run's own line (no band) in the group's colour.
QVector<CompareLine> compareGroupLines(const Comparison& comparison, const RunGroup& group, int groupIndex,
                                       const QString& metric, CompareX axis, const CompareSmoothing& smoothing,
                                       bool smooth, const CompareGrouping& grouping);
// The x span of every compared run (the first metric each has), for a window relative to it.
double compareXSpan(const Comparison& comparison, CompareX axis);

}  // namespace traindeck
