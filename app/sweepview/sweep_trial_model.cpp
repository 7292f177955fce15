// A new view replaces the rows whole (a model reset): sweep.json is read whole too, and a
// sweep has at most a few hundred trials. The best trial's row is bold with a star.
#include "sweep_trial_model.h"

#include <QDir>
#include <QFont>
#include <cmath>

namespace traindeck {

void SweepTrialModel::setView(std::shared_ptr<const SweepView> view) {
  beginResetModel();
  m_view = std::move(view);
  endResetModel();
}

int SweepTrialModel::parameterCount() const {
  return m_view && !m_view->axes.empty() ? static_cast<int>(m_view->axes.size()) - 1 : 0;
}

int SweepTrialModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !m_view ? 0 : static_cast<int>(m_view->trials.size());
}

int SweepTrialModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : runColumn() + 1;
}

QVariant SweepTrialModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Name:
      return tr("Trial");
    case State:
      return tr("State");
    case Rung:
      return tr("Rung");
    case Metric:
      return m_view ? m_view->metricName : tr("Metric");
    case Progress:
      return m_view && m_view->unit == ProgressUnit::Steps ? tr("Steps") : tr("Tokens");
    default:
      break;
  }
  if (section == runColumn()) return tr("Run folder");
  return m_view->axes[static_cast<std::size_t>(section - FirstParameter)].title;
}

QVariant SweepTrialModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !m_view) return {};
  const SweepTrialView& trial = m_view->trials[static_cast<std::size_t>(index.row())];
  const bool best = index.row() == m_view->best;
  switch (role) {
    case Qt::DisplayRole:
      return display(trial, index.column(), best);
    case kSortRole:
      return sortValue(trial, index.column());
    case kTrialRole:
      return index.row();
    case Qt::FontRole: {
      if (!best) return {};
      QFont bold;
      bold.setBold(true);
      return bold;
    }
    case Qt::ToolTipRole:
      if (index.column() == runColumn() && trial.runMissing) return tr("This run folder is not there (deleted?)");
      if (best && index.column() == Name) return tr("The best trial by %1").arg(m_view->metricName);
      return {};
    default:
      return {};
  }
}

QVariant SweepTrialModel::display(const SweepTrialView& trial, int column, bool best) const {
  switch (column) {
    case Name:
      return (best ? QStringLiteral("★ ") : QString()) + QString::fromStdString(trial.record.params.name);
    case State:
      return trialStateText(trial.record, m_view->unit);
    case Rung:
      return trial.record.lastRung() < 0 ? QString() : QString::number(trial.record.lastRung());
    case Metric:
      return std::isfinite(trial.metric) ? QString::number(trial.metric, 'g', 5) : QString();
    case Progress: {
      const std::int64_t at = m_view->unit == ProgressUnit::Steps ? trial.steps : trial.tokens;
      return at > 0 ? progressText(at, m_view->unit).section(' ', 0, 0) : QString();
    }
    default:
      break;
  }
  if (column == runColumn())
    return trial.runDir.isEmpty() ? QString()
                                  : QDir::toNativeSeparators(trial.runDir) + (trial.runMissing ? tr(" (missing)") : "");
  const SweepAxis& axis = m_view->axes[static_cast<std::size_t>(column - FirstParameter)];
  const double v = axis.valueOf(trial);
  return std::isfinite(v) ? axis.label(v) : QString();
}

QVariant SweepTrialModel::sortValue(const SweepTrialView& trial, int column) const {
  switch (column) {
    case Rung:
      return trial.record.lastRung();
    case Metric:  // trials without a metric sort after every value
      return std::isfinite(trial.metric) ? trial.metric : (m_view->goal == MetricGoal::Min ? 1e300 : -1e300);
    case Progress:
      return static_cast<qlonglong>(m_view->unit == ProgressUnit::Steps ? trial.steps : trial.tokens);
    case State:
      return static_cast<int>(trial.record.state);
    default:
      break;
  }
  if (column >= FirstParameter && column < runColumn()) {
    const double v = m_view->axes[static_cast<std::size_t>(column - FirstParameter)].valueOf(trial);
    return std::isfinite(v) ? v : -1e300;
  }
  return display(trial, column, false);
}

SweepTrialFilterModel::SweepTrialFilterModel(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(SweepTrialModel::kSortRole);
}

void SweepTrialFilterModel::setPassing(std::vector<bool> passing) {
  m_passing = std::move(passing);
  invalidateFilter();
}

bool SweepTrialFilterModel::filterAcceptsRow(int row, const QModelIndex&) const {
  return row < 0 || static_cast<std::size_t>(row) >= m_passing.size() || m_passing[static_cast<std::size_t>(row)];
}

}  // namespace traindeck
