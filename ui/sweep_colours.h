// The Sweep page's one colouring of trials, shared by its charts: by metric from good (green)
// through yellow to bad (red) for the trials the brushes let through, faint grey for the
// others, and grey for trials without a metric yet.
#pragma once

#include <QColor>
#include <QPalette>
#include <cmath>

#include "sweep_view.h"

namespace traindeck {

inline QColor sweepTrialColour(const SweepView& view, std::size_t trial, bool passing, const QPalette& palette) {
  if (!passing) {
    QColor grey = palette.color(QPalette::Mid);
    grey.setAlphaF(0.35f);
    return grey;
  }
  const SweepAxis& metric = view.axes.back();
  const double value = view.trials[trial].metric;
  if (!std::isfinite(value)) return palette.color(QPalette::Dark);
  double bad = metric.fraction(value);  // 0 at the lowest metric
  if (view.goal == MetricGoal::Max) bad = 1 - bad;
  const auto mix = [](const QColor& a, const QColor& b, double t) {
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                            static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
  };
  const QColor good(0x1a, 0x98, 0x50), middle(0xe6, 0xb4, 0x22), worst(0xd7, 0x30, 0x27);
  return bad < 0.5 ? mix(good, middle, bad * 2) : mix(middle, worst, (bad - 0.5) * 2);
}

}  // namespace traindeck
