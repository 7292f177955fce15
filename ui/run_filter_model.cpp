#include "run_filter_model.h"

#include <cmath>

#include "runs/run_list_model.h"

namespace traindeck {

RunFilterModel::RunFilterModel(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(Qt::EditRole);  // the values, not their display texts
  setDynamicSortFilter(true);
}

void RunFilterModel::setText(const QString& text) {
  m_text = text.trimmed();
  invalidateFilter();
}

void RunFilterModel::setStatus(const QString& status) {
  m_status = status;
  invalidateFilter();
}

bool RunFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex&) const {
  const auto* runs = qobject_cast<const RunListModel*>(sourceModel());
  if (runs == nullptr) return true;
  const RunSummary& run = runs->runAt(sourceRow);
  if (!m_status.isEmpty() && runs->statusOf(run) != m_status) return false;
  return m_text.isEmpty() || run.name.contains(m_text, Qt::CaseInsensitive) ||
         run.id.contains(m_text, Qt::CaseInsensitive);
}

bool RunFilterModel::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  const auto missing = [this](const QModelIndex& at) {
    const QVariant v = at.data(sortRole());
    return !v.isValid() || (v.typeId() == QMetaType::Double && std::isnan(v.toDouble()));
  };
  const bool leftMissing = missing(left), rightMissing = missing(right);
  if (!leftMissing && !rightMissing) return QSortFilterProxyModel::lessThan(left, right);
  // A descending sort asks lessThan(right, left): a missing value is then the "smaller" one.
  if (leftMissing == rightMissing) return false;
  return sortOrder() == Qt::AscendingOrder ? rightMissing : leftMissing;
}

}  // namespace traindeck
