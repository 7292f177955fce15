// Titles are "<metric> <stat>": a metric name may hold spaces, the stat is matched at the end.
#include "metric_column.h"

#include <array>
#include <utility>

#include "run_index_entry.h"

namespace traindeck {

namespace {

constexpr std::array<std::pair<MetricStat, const char*>, 4> kStatNames = {{
    {MetricStat::Last, "last"},
    {MetricStat::Min, "min"},
    {MetricStat::Max, "max"},
    {MetricStat::BestStep, "best step"},
}};

}  // namespace

QString MetricColumn::title() const {
  for (const auto& [s, name] : kStatNames)
    if (s == stat) return metric + ' ' + QLatin1String(name);
  return metric;
}

std::optional<MetricColumn> MetricColumn::fromTitle(const QString& title) {
  for (const auto& [stat, name] : kStatNames) {
    const QString suffix = ' ' + QLatin1String(name);
    if (title.size() > suffix.size() && title.endsWith(suffix))
      return MetricColumn{.metric = title.chopped(suffix.size()), .stat = stat};
  }
  return std::nullopt;
}

QVariant MetricColumn::value(const RunIndexEntry* entry, bool forDisplay) const {
  const MetricSummary* summary = entry != nullptr ? entry->metric(metric) : nullptr;
  if (summary == nullptr || summary->count == 0) return forDisplay ? QVariant(QString()) : QVariant();
  if (stat == MetricStat::BestStep) return summary->bestStep(higherIsBetter(metric));
  const double v = stat == MetricStat::Last ? summary->last : stat == MetricStat::Min ? summary->min : summary->max;
  return forDisplay ? QVariant(QString::number(v, 'g', 5)) : QVariant(v);
}

QList<MetricColumn> defaultMetricColumns(const QString& metric) {
  return {{.metric = metric, .stat = MetricStat::Last},
          {.metric = metric, .stat = higherIsBetter(metric) ? MetricStat::Max : MetricStat::Min},
          {.metric = metric, .stat = MetricStat::BestStep}};
}

QStringList metricColumnTitles(const QList<MetricColumn>& columns) {
  QStringList titles;
  for (const MetricColumn& c : columns) titles << c.title();
  return titles;
}

QList<MetricColumn> metricColumnsFromTitles(const QStringList& titles) {
  QList<MetricColumn> columns;
  for (const QString& title : titles)
    if (const std::optional<MetricColumn> c = MetricColumn::fromTitle(title)) columns << *c;
  return columns;
}

}  // namespace traindeck
