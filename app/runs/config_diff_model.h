// The Compare page's config diff: one row per config key (dotted: "optimizer.lr"), a Key
// column, then one column per compared run. By default only the keys whose values differ;
// setShowAll(true) lists every key. In a differing row, the cells that differ from the row's
// most common value are highlighted; a key a run does not have reads "—".
#pragma once

#include <QAbstractTableModel>
#include <QVector>

#include "run_comparison.h"

namespace traindeck {

class Comparison;

class ConfigDiffModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int DiffersRole = Qt::UserRole + 1;  // bool: this cell differs from the row's common value

  explicit ConfigDiffModel(const Comparison* comparison, QObject* parent = nullptr);

  void setShowAll(bool all);
  bool showsAll() const { return m_showAll; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    ConfigDiffRow diff;
    QVector<bool> odd;  // per run: differs from the most common value of the row
  };
  void rebuild();

  const Comparison* m_comparison;
  bool m_showAll = false;
  QVector<Row> m_rows;
  int m_runs = 0;
};

}  // namespace traindeck
