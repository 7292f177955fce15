// One metric of one run as x/y vectors for a chart: what the Compare page overlays. The x axis
// is the step, the tokens seen, the seconds since the run's start, or the wall-clock time
// (unix seconds). Values the run did not record are NaN (a gap in the line); on a time axis a NaN
// point also stands where the run was stopped (run_pauses.h), so no line crosses that time.
#pragma once

#include <QVector>

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

}  // namespace traindeck
