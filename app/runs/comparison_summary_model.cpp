#include "comparison_summary_model.h"

#include <QLocale>
#include <cmath>

#include "comparison.h"
#include "human_duration.h"
#include "metrics_csv.h"

namespace traindeck {

namespace {

QString csvValue(const QVariant& value) {
  if (!value.isValid()) return {};
  return csvField(value.typeId() == QMetaType::Double ? QString::number(value.toDouble(), 'g', 10) : value.toString());
}

}  // namespace

ComparisonSummaryModel::ComparisonSummaryModel(const Comparison* comparison, QObject* parent)
    : QAbstractTableModel(parent), m_comparison(comparison) {
  connect(comparison, &Comparison::runsChanged, this, &ComparisonSummaryModel::reset);
  connect(comparison, &Comparison::metricsChanged, this, &ComparisonSummaryModel::refreshRow);
  connect(comparison, &Comparison::summaryChanged, this, &ComparisonSummaryModel::refreshRow);
  connect(comparison, &Comparison::coloursChanged, this, [this] {
    if (!m_figures.isEmpty())
      emit dataChanged(index(0, RunColumn), index(rowCount() - 1, RunColumn), {Qt::DecorationRole, Qt::ToolTipRole});
  });
  reset();
}

void ComparisonSummaryModel::reset() {
  beginResetModel();
  m_figures.clear();
  for (int i = 0; i < m_comparison->size(); ++i) m_figures.push_back(m_comparison->figures(i));
  endResetModel();
}

void ComparisonSummaryModel::refreshRow(int row) {
  if (row < 0 || row >= m_figures.size()) return;
  m_figures[row] = m_comparison->figures(row);
  emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

int ComparisonSummaryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_figures.size());
}

int ComparisonSummaryModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ComparisonSummaryModel::rawValue(int row, int column) const {
  const RunFigures& f = m_figures[row];
  const auto number = [](double v) { return std::isfinite(v) ? QVariant(v) : QVariant(); };
  switch (column) {
    case RunColumn:
      return m_comparison->run(row).label;
    case StatusColumn:
      return f.status;
    case FinalLossColumn:
      return number(f.finalLoss);
    case BestValLossColumn:
      return number(f.bestValLoss);
    case BestValStepColumn:
      return f.bestValStep >= 0 ? QVariant(f.bestValStep) : QVariant();
    case MedianTokensColumn:
      return number(f.medianTokensPerSecond);
    case WallTimeColumn:
      return f.wallSeconds;
    case ParametersColumn:
      return f.parameters > 0 ? QVariant(f.parameters) : QVariant();
    case WorldSizeColumn:
      return f.worldSize;
    case StrategyColumn:
      return f.strategy;
    case PrecisionColumn:
      return f.precision;
  }
  return {};
}

QVariant ComparisonSummaryModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= m_figures.size()) return {};
  const int row = index.row(), column = index.column();
  if (role == SortRole) return rawValue(row, column);
  if (role == Qt::DecorationRole && column == RunColumn) return m_comparison->runColour(row);
  if (role == Qt::ToolTipRole) {
    // The whole name first: the table elides a long one.
    const ComparedRun& run = m_comparison->run(row);
    const QString note = m_comparison->colourNote(row);
    return run.label + '\n' + run.runDir + (note.isEmpty() ? QString() : '\n' + note);
  }
  if (role == Qt::TextAlignmentRole && column >= FinalLossColumn && column <= WorldSizeColumn)
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole) return {};
  const QVariant raw = rawValue(row, column);
  if (!raw.isValid()) return QStringLiteral("—");
  const QLocale locale;
  switch (column) {
    case FinalLossColumn:
    case BestValLossColumn:
      return QString::number(raw.toDouble(), 'f', 4);
    case MedianTokensColumn:
      return locale.toString(raw.toDouble(), 'f', 0);
    case WallTimeColumn:
      return humanDuration(raw.toDouble());
    case ParametersColumn:
      return locale.toString(raw.toLongLong());
    default:
      return raw;
  }
}

QVariant ComparisonSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* const kNames[ColumnCount] = {
      QT_TR_NOOP("Run"),        QT_TR_NOOP("Status"),       QT_TR_NOOP("Final loss"), QT_TR_NOOP("Best val loss"),
      QT_TR_NOOP("at step"),    QT_TR_NOOP("Median tok/s"), QT_TR_NOOP("Wall time"),  QT_TR_NOOP("Parameters"),
      QT_TR_NOOP("World size"), QT_TR_NOOP("Strategy"),     QT_TR_NOOP("Precision")};
  return section >= 0 && section < ColumnCount ? tr(kNames[section]) : QVariant();
}

QString ComparisonSummaryModel::toCsv() const {
  static const char* const kKeys[ColumnCount] = {
      "run",          "status",     "final_loss", "best_val_loss", "best_val_step", "median_tokens_per_s",
      "wall_seconds", "parameters", "world_size", "strategy",      "precision"};
  QStringList lines;
  QStringList header;
  for (const char* key : kKeys) header << QLatin1String(key);
  header << QStringLiteral("run_dir");
  lines << header.join(QLatin1Char(','));
  for (int row = 0; row < rowCount(); ++row) {
    QStringList fields;
    for (int column = 0; column < ColumnCount; ++column) fields << csvValue(rawValue(row, column));
    fields << csvField(m_comparison->run(row).runDir);
    lines << fields.join(QLatin1Char(','));
  }
  return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

}  // namespace traindeck
