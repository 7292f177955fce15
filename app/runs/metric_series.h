// One metric of one run as x/y vectors for a chart: what the Compare page overlays. The x axis
// is the step, the tokens seen, the seconds since the run's start, or the wall-clock time
// (unix seconds). Values the run did not record are NaN (a gap in the line); on a time axis a NaN
// point also stands where the run was stopped (run_pauses.h), so no line crosses that time.
// Metrics are also addressed by name (metricSeriesByName): TrainDeck's own columns under the
// names `traindeck --read` prints, every other scalar of an imported run under its own.
#pragma once

#include <QStringList>
#include <QVector>
#include <vector>

#include "imports/imported_run.h"
#include "metrics_store.h"

namespace traindeck {

enum class CompareMetric { TrainLoss, ValLoss, LearningRate, TokensPerSecond, GradNorm };
enum class CompareX { Step, Tokens, Elapsed, WallClock };

struct MetricSeries {
  QVector<double> x, y;
};

MetricSeries metricSeries(const MetricsStore& store, CompareMetric metric, CompareX axis);
// One record's place on `axis`; `start` is where Elapsed counts from (unix seconds).
double axisValue(CompareX axis, std::int64_t step, std::int64_t tokens, double time, double start);
// The run's start in unix seconds: its header's time, else its first record's; NaN if neither.
double runStartTime(const MetricsStore& store);

// The name of one of the fixed metrics: "loss", "val_loss", "lr", "tokens_per_s", "grad_norm".
QString metricName(CompareMetric metric);
// The names a run has values for (a column with a finite value, every named scalar): the mapped
// ones (loss, val_loss, lr, grad_norm) first, then TrainDeck's other columns, then the scalars.
QStringList metricNamesOf(const MetricsStore& store, const std::vector<ScalarSeries>& scalars);
// The union over several runs in the same order: mapped names first, then the rest as first met.
QStringList unionOfMetricNames(const QVector<QStringList>& perRun);
// A title for a picker or a chart: "Train loss" for "loss", the name itself for others.
QString metricTitle(const QString& name);
// Whether the smoothing applies by default: noisy per-step values, not a schedule or an eval.
bool metricIsSmoothed(const QString& name);
// One metric by name: a column of the store or a scalar; empty when the run has neither, or
// when the axis is Tokens and the run does not count them (other tools' runs).
MetricSeries metricSeriesByName(const MetricsStore& store, const std::vector<ScalarSeries>& scalars,
                                const QString& name, CompareX axis);

}  // namespace traindeck
