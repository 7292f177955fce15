#include "metric_series.h"

#include <algorithm>
#include <cmath>

namespace traindeck {

namespace {

template <class Columns>
double xOf(const Columns& c, std::size_t i, CompareX axis, double start) {
  return axisValue(axis, c.step[i], c.tokens[i], c.time[i], start);
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
  if (metric == CompareMetric::ValLoss) {
    const EvalColumns& eval = store.eval();
    s.x.reserve(static_cast<qsizetype>(eval.size()));
    s.y.reserve(static_cast<qsizetype>(eval.size()));
    for (std::size_t i = 0; i < eval.size(); ++i) {
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
    s.x.push_back(xOf(train, i, axis, start));
    s.y.push_back((*values)[i]);
  }
  return s;
}

}  // namespace traindeck
