// The Compare page's summary table: one row per compared run (status, final loss, best val loss
// and its step, median tokens/s, wall time, parameters, world size, strategy, precision).
// Display text is formatted; SortRole holds the raw value so a proxy sorts numbers as numbers.
// The Run column carries the run's colour. Follows the Comparison it is given (GUI thread).
#pragma once

#include <QAbstractTableModel>
#include <QVector>

#include "run_comparison.h"

namespace traindeck {

class Comparison;

class ComparisonSummaryModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    RunColumn,
    StatusColumn,
    FinalLossColumn,
    BestValLossColumn,
    BestValStepColumn,
    MedianTokensColumn,
    WallTimeColumn,
    ParametersColumn,
    WorldSizeColumn,
    StrategyColumn,
    PrecisionColumn,
    ColumnCount
  };
  static constexpr int SortRole = Qt::UserRole + 1;

  explicit ComparisonSummaryModel(const Comparison* comparison, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  // The table as CSV: a header line, then one line per run with raw values (empty where unknown).
  QString toCsv() const;

 private:
  void reset();
  void refreshRow(int row);
  QVariant rawValue(int row, int column) const;

  const Comparison* m_comparison;
  QVector<RunFigures> m_figures;  // one per run, recomputed when that run's metrics grow
};

}  // namespace traindeck
