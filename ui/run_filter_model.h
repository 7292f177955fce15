// The run list as the user narrows and orders it: runs whose name or id contain a text, of one
// status or of all, sorted by any column (numbers as numbers; a run without a value, such as a
// metric it never logged, last in either order). A proxy over RunListModel; rows of the view
// are mapped to the model's with mapToSource/mapFromSource.
#pragma once

#include <QSortFilterProxyModel>

namespace traindeck {

class RunFilterModel : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit RunFilterModel(QObject* parent = nullptr);
  void setText(const QString& text);
  void setStatus(const QString& status);  // "running", ...; empty: every status

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

 private:
  QString m_text, m_status;
};

}  // namespace traindeck
