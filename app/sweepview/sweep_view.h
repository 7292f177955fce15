// What the Sweep page shows of one sweep folder: sweep.json's trials, each with its run's curve
// of the sweep's metric, and what sweep.yaml says of the parameters and the metric when it
// reads. Made whole by SweepFolderReader each time the files change, then never changed: the
// page's views only read it.
#pragma once

#include <QString>
#include <QStringList>
#include <QVector>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "sweep/sweep_spec.h"
#include "sweep/sweep_state.h"

namespace traindeck {

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

struct SweepTrialView {
  TrialRecord record;
  QString runDir;                      // absolute; empty until the trial started
  bool runMissing = false;             // sweep.json names a run folder that is not there
  QVector<double> x, y;                // the metric over the rungs' unit (tokens or steps), x ascending
  double metric = kNoValue;            // its latest finite value (metrics.jsonl, else the last rung's)
  std::int64_t tokens = 0, steps = 0;  // trained so far, as its metrics say
};

// One axis of the parallel coordinates (and one scatter): a swept parameter, or the metric.
struct SweepAxis {
  QString key;    // the config key; empty for the metric's axis
  QString title;  // the key's last part, or the metric's name
  bool log = false;
  bool categorical = false;
  QStringList categories;                 // categorical: the values, in the sweep's order
  double min = kNoValue, max = kNoValue;  // numeric: the range shown (the spec's, widened to every value)
  std::vector<double> listed;             // numeric list: its values (where to put ticks)

  bool isMetric() const { return key.isEmpty(); }
  // The trial's place on the axis: its number, or its category's index; NaN when not set.
  double valueOf(const SweepTrialView& trial) const;
  // 0 at the bottom, 1 at the top (a log axis in log space); categories evenly spaced.
  double fraction(double value) const;
  double valueAt(double fraction) const;  // the inverse
  // A value as the axis labels it ("3e-4", "cosine").
  QString label(double value) const;
};

struct SweepView {
  QString dir;           // the sweep folder, absolute
  QString error;         // sweep.json cannot be read: what and where (then no trials)
  QString specProblem;   // sweep.yaml cannot be read: parameters are shown as linear
  bool missing = false;  // no sweep.json yet
  std::optional<SweepSpec> spec;
  QString sweepFile;  // sweep.json's "sweep"
  QString metricName = QStringLiteral("val_loss");
  MetricGoal goal = MetricGoal::Min;
  ProgressUnit unit = ProgressUnit::Tokens;  // the x of curves and rungs
  std::vector<SweepTrialView> trials;
  std::vector<SweepAxis> axes;  // the parameters in the sweep's order, then the metric
  int best = -1;                // index of the best trial by metric and goal; -1: none has a metric

  const SweepAxis* axis(const QString& key) const;
};

// The trial with the best finite metric for the goal (ties: the first); -1 when none has one.
int bestTrial(const std::vector<SweepTrialView>& trials, MetricGoal goal);

// The rung result where early stopping stopped a pruned trial (its last); nullopt otherwise.
std::optional<RungResult> prunedAt(const TrialRecord& trial);

// "pruned at rung 1 (30M tokens)", "finished", "running, past rung 0", "failed", ...
QString trialStateText(const TrialRecord& trial, ProgressUnit unit);

// "12 trials: 3 running, 5 pruned, 4 finished", states in their enum order.
QString trialCountsText(const SweepView& view);

// "30M tokens", "1.2k steps".
QString progressText(std::int64_t at, ProgressUnit unit);

// The axes of these trials: from the spec's parameters when there is one (log for log ranges,
// and for positive numbers spanning two decades or more), else from the trials' settings as met (linear); then the
// metric.
std::vector<SweepAxis> sweepAxes(const std::optional<SweepSpec>& spec, const std::vector<SweepTrialView>& trials,
                                 const QString& metricName);

}  // namespace traindeck
