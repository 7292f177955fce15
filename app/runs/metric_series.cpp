#include "metric_series.h"

#include <algorithm>
#include <cmath>

#include "run_pauses.h"

namespace traindeck {

namespace {

template <class Columns>
double xOf(const Columns& c, std::size_t i, CompareX axis, double start) {
  return axisValue(axis, c.step[i], c.tokens[i], c.time[i], start);
}

// On a time axis, a point with no value between two records a pause lies between: the line
// breaks there instead of joining the records across the stopped time.
template <class Columns>
void breakAtPause(MetricSeries& s, const Columns& c, std::size_t i, CompareX axis, double start,
                  const std::vector<Pause>& pauses) {
  if (i == 0 || pauses.empty()) return;
  if (!pauseBetween(pauses, c.time[i - 1], c.time[i])) return;
  s.x.push_back((xOf(c, i - 1, axis, start) + xOf(c, i, axis, start)) / 2);
  s.y.push_back(std::nan(""));
}

}  // namespace

double axisValue(CompareX axis, std::int64_t step, std::int64_t tokens, double time, double start) {
  switch (axis) {
    case CompareX::Step:
      return static_cast<double>(step);
    case CompareX::Tokens:
      return static_cast<double>(tokens);
    case CompareX::Elapsed:
      return time - start;
    case CompareX::WallClock:
      return time;
  }
  return 0;
}

double runStartTime(const MetricsStore& store) {
  if (store.hasHeader() && store.header().time > 0) return store.header().time;
  double first = INFINITY;
  if (store.train().size()) first = std::min(first, store.train().time.front());
  if (store.eval().size()) first = std::min(first, store.eval().time.front());
  return std::isfinite(first) ? first : std::nan("");
}

MetricSeries metricSeries(const MetricsStore& store, CompareMetric metric, CompareX axis) {
  MetricSeries s;
  const double start = runStartTime(store);
  const bool timeAxis = axis == CompareX::Elapsed || axis == CompareX::WallClock;
  const std::vector<Pause> pauses = timeAxis ? runPauses(store.train(), store.eval()) : std::vector<Pause>{};
  if (metric == CompareMetric::ValLoss) {
    const EvalColumns& eval = store.eval();
    s.x.reserve(static_cast<qsizetype>(eval.size()));
    s.y.reserve(static_cast<qsizetype>(eval.size()));
    for (std::size_t i = 0; i < eval.size(); ++i) {
      breakAtPause(s, eval, i, axis, start, pauses);
      s.x.push_back(xOf(eval, i, axis, start));
      s.y.push_back(eval.valLoss[i]);
    }
    return s;
  }
  const TrainColumns& train = store.train();
  const std::vector<float>* values = nullptr;
  switch (metric) {
    case CompareMetric::TrainLoss:
      values = &train.loss;
      break;
    case CompareMetric::LearningRate:
      values = &train.lr;
      break;
    case CompareMetric::TokensPerSecond:
      values = &train.tokensPerSecond;
      break;
    case CompareMetric::GradNorm:
      values = &train.gradNorm;
      break;
    case CompareMetric::ValLoss:
      break;
  }
  s.x.reserve(static_cast<qsizetype>(train.size()));
  s.y.reserve(static_cast<qsizetype>(train.size()));
  for (std::size_t i = 0; i < train.size(); ++i) {
    breakAtPause(s, train, i, axis, start, pauses);
    s.x.push_back(xOf(train, i, axis, start));
    s.y.push_back((*values)[i]);
  }
  return s;
}

}  // namespace traindeck
