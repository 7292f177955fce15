// A Monitor chart of one metric addressed by name (metric_series.h): one of TrainDeck's columns
// the fixed charts do not show (step time, MFU) or another tool's scalar (val_acc,
// eval/accuracy). It draws the whole series again only when the run's store grew, or the axis or
// smoothing changed; a redraw with nothing new is free.
#pragma once

#include <QString>

#include "runs/metric_series.h"

namespace traindeck {

class MetricChart;
class MetricsStore;

class NamedMetricChart {
 public:
  NamedMetricChart(QString name, MetricChart* chart) : m_name(std::move(name)), m_chart(chart) {}

  const QString& name() const { return m_name; }
  MetricChart* chart() const { return m_chart; }
  // Draws the metric of `store` (none: empty) on `axis`, smoothed by `weight` when the metric is
  // a noisy per-step value.
  void draw(const MetricsStore* store, CompareX axis, double weight);

 private:
  struct Drawn {
    const MetricsStore* store = nullptr;
    std::size_t points = 0;  // the store's train, eval and scalar points together
    CompareX axis = CompareX::Step;
    double weight = -1;
    bool operator==(const Drawn&) const = default;
  };
  QString m_name;
  MetricChart* m_chart;
  Drawn m_drawn;
};

// The store's train, eval and scalar points together: it changes whenever the store does.
std::size_t storePoints(const MetricsStore& store);

}  // namespace traindeck
