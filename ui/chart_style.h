// What every chart of the app shares: colours from the widget's palette (light or dark), so
// that the Monitor and Compare pages look alike and follow palette changes.
#pragma once

#include <QElapsedTimer>
#include <QList>

class QCPAxis;
class QCustomPlot;
class QCPTextElement;

namespace traindeck {

// Background, axes, grid, legend and the heading (may be null) in the plot's palette colours.
void applyChartPalette(QCustomPlot* plot, QCPTextElement* heading);
// Pen width for a line of `points` points: lines wider than one pixel are stroked as filled
// outlines, which costs ~100x more per point, so long series get thin lines.
double lineWidthFor(long long points);
// The wait before a page's next redraw, given what its last one cost (preparing the data and
// the charts' repaints): four times that, from 40 ms to 1 s, so that long live runs stay live
// without taking the event loop.
int nextRedrawIntervalMs(double lastCostMs);
// The same, from the time since `redrawStarted` and the last repaint of each of `charts`.
template <class Chart>
int nextRedrawIntervalMs(const QElapsedTimer& redrawStarted, const QList<Chart*>& charts) {
  double cost = static_cast<double>(redrawStarted.nsecsElapsed()) / 1e6;
  for (const Chart* chart : charts) cost += chart->replotTime();
  return nextRedrawIntervalMs(cost);
}
// A logarithmic axis with log ticks, or a linear one.
void setLogAxis(QCPAxis* axis, bool on);

}  // namespace traindeck
