// A run list column that shows one statistic of one metric by name, from the summary index:
// "val_loss last", "val_loss min", "val_loss max", "val_loss best step". The title is also how
// the column is saved (QSettings) and found again (WindowState keeps sort and hidden by title).
#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <optional>

namespace traindeck {

struct RunIndexEntry;

enum class MetricStat { Last, Min, Max, BestStep };

struct MetricColumn {
  QString metric;
  MetricStat stat = MetricStat::Last;

  QString title() const;
  // The column a title names; nullopt for a title that names none.
  static std::optional<MetricColumn> fromTitle(const QString& title);
  // The value for sorting (a number) or for display (text); an invalid QVariant (sorting) or an
  // empty text (display) where the run has no value of the metric.
  QVariant value(const RunIndexEntry* entry, bool forDisplay) const;
  bool operator==(const MetricColumn&) const = default;
};

// The columns that adding a metric to the list gives: its last value, its best (the minimum, or
// the maximum where higher is better: metric_summary.h) and its best step.
QList<MetricColumn> defaultMetricColumns(const QString& metric);
QStringList metricColumnTitles(const QList<MetricColumn>& columns);
QList<MetricColumn> metricColumnsFromTitles(const QStringList& titles);  // titles that name none are left out

}  // namespace traindeck
