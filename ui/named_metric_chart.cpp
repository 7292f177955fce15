#include "named_metric_chart.h"

#include "metric_chart.h"
#include "runs/metrics_store.h"
#include "smoothing.h"

namespace traindeck {

void NamedMetricChart::draw(const MetricsStore* store, CompareX axis, double weight) {
  const Drawn now{.store = store, .points = store ? storePoints(*store) : 0, .axis = axis, .weight = weight};
  if (now == m_drawn) return;
  m_drawn = now;
  if (!store) {
    m_chart->setSeries({}, {}, {});
    return;
  }
  const MetricSeries series = metricSeriesByName(*store, store->scalars(), m_name, axis);
  QVector<double> smoothed;
  if (metricIsSmoothed(m_name) && weight > 0) {
    DebiasedEma ema(weight);
    smoothed.reserve(series.y.size());
    for (double y : series.y) smoothed.push_back(ema.push(y));
  }
  m_chart->setSeries(series.x, series.y, smoothed);
}

std::size_t storePoints(const MetricsStore& store) {
  std::size_t points = store.train().size() + store.eval().size();
  for (const ScalarSeries& scalar : store.scalars()) points += scalar.size();
  return points;
}

}  // namespace traindeck
