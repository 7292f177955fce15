// The colours of compared runs: each run's own slot, a palette colour per value of a config key
// (runs with equal values share it), a perceptual ramp over a metric's last or smallest value,
// or colours picked by hand. Plain functions over values already read; Qt Gui's QColor only.
#pragma once

#include <QColor>
#include <QString>
#include <QVector>
#include <cmath>
#include <optional>

namespace traindeck {

constexpr int kComparisonColorCount = 20;

// 20 colours that stay apart from each other on light and dark backgrounds; slots past them
// take the same colours again (grouping gives hundreds of runs a colour per group).
QColor comparisonColor(int slot);

struct ColourBy {
  enum class Kind { Run, ConfigKey, Metric, ByHand };
  enum class Statistic { Last, Min };
  Kind kind = Kind::Run;
  QString key{};                          // ConfigKey: a flattened config key ("optimizer.lr"); Metric: a metric name
  Statistic statistic = Statistic::Last;  // Metric: which value of each run the ramp places
  bool operator==(const ColourBy&) const = default;
};

// What the colouring needs of one run.
struct ColourableRun {
  int slot = 0;                          // its own colour slot (comparisonColor)
  std::optional<QString> configValue{};  // ConfigKey: its value of the key; none: no such key
  double metric = NAN;                   // Metric: its last or smallest finite value; NaN: none
  QColor byHand{};                       // ByHand: the colour the user picked; invalid: none
};

struct RunColours {
  QVector<QColor> colours;  // one per run
  // What each colour stands for, for legends and tooltips: "optimizer.lr=0.001",
  // "val_loss last 2.31", "picked by hand"; empty where it is the run's own colour.
  QVector<QString> notes;
  QVector<QString> values;       // the value alone, for narrow places: "0.001", "2.31", "none"; empty likewise
  double low = NAN, high = NAN;  // Metric: the values at the ramp's two ends; NaN when no run has one
  bool operator==(const RunColours& other) const;  // NaN ends equal to NaN ends
};

// Run: each run's slot. ConfigKey: the distinct values sorted (as numbers when every value is
// one, else as text) take the palette's colours in that order, greys left out, so a value's
// colour does not depend on the runs' order; a run without the key is grey. Metric: the ramp
// from the smallest value (rampColour(0)) to the largest (rampColour(1)), the middle when all
// are equal; a run without the metric is grey. ByHand: the colour picked, else the run's slot.
RunColours assignRunColours(const QVector<ColourableRun>& runs, const ColourBy& by);

// A perceptual ramp (matplotlib's viridis: dark violet through teal to yellow), t in [0, 1].
QColor rampColour(double t);
// What runs without a value of the key or metric are drawn in.
QColor missingValueColour();
QString statisticName(ColourBy::Statistic statistic);  // "last", "min"

}  // namespace traindeck
