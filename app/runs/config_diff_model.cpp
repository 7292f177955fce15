#include "config_diff_model.h"

#include <QBrush>
#include <QFont>
#include <map>

#include "comparison.h"

namespace traindeck {

namespace {

const QString kMissing = QStringLiteral("—");

// Per run: whether its value is not the row's most common one (ties: the earliest run's value
// is the reference, so with two runs the second is marked).
QVector<bool> oddOnes(const ConfigDiffRow& row) {
  const int runs = static_cast<int>(row.values.size());
  const auto text = [&](int run) { return row.present[run] ? row.values[run] : kMissing; };
  std::map<QString, int> counts;
  for (int run = 0; run < runs; ++run) ++counts[text(run)];
  QString common;
  int best = 0;
  for (int run = 0; run < runs; ++run)
    if (counts[text(run)] > best) {
      best = counts[text(run)];
      common = text(run);
    }
  QVector<bool> odd;
  for (int run = 0; run < runs; ++run) odd.append(row.differs && text(run) != common);
  return odd;
}

}  // namespace

ConfigDiffModel::ConfigDiffModel(const Comparison* comparison, QObject* parent)
    : QAbstractTableModel(parent), m_comparison(comparison) {
  connect(comparison, &Comparison::runsChanged, this, &ConfigDiffModel::rebuild);
  connect(comparison, &Comparison::summaryChanged, this, [this](int run) {
    if (m_runs > 0) emit headerDataChanged(Qt::Horizontal, run + 1, run + 1);
  });
  connect(comparison, &Comparison::coloursChanged, this, [this] {
    if (m_runs > 0) emit headerDataChanged(Qt::Horizontal, 1, m_runs);
  });
  rebuild();
}

void ConfigDiffModel::setShowAll(bool all) {
  if (all == m_showAll) return;
  m_showAll = all;
  rebuild();
}

void ConfigDiffModel::rebuild() {
  beginResetModel();
  QVector<FlatConfig> configs;
  for (int i = 0; i < m_comparison->size(); ++i) configs.push_back(m_comparison->run(i).config);
  m_runs = static_cast<int>(configs.size());
  m_rows.clear();
  for (ConfigDiffRow& diff : diffConfigs(configs, !m_showAll)) {
    QVector<bool> odd = oddOnes(diff);
    m_rows.push_back({std::move(diff), std::move(odd)});
  }
  endResetModel();
}

int ConfigDiffModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ConfigDiffModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : 1 + m_runs;
}

QVariant ConfigDiffModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= m_rows.size() || index.column() > m_runs) return {};
  const Row& row = m_rows[index.row()];
  if (index.column() == 0) {
    if (role == Qt::DisplayRole) return row.diff.key;
    if (role == Qt::FontRole && row.diff.differs && m_showAll) {
      QFont bold;
      bold.setBold(true);
      return bold;
    }
    if (role == DiffersRole) return row.diff.differs;
    return {};
  }
  const int run = index.column() - 1;
  const bool present = row.diff.present[run];
  switch (role) {
    case Qt::DisplayRole:
      return present ? row.diff.values[run] : kMissing;
    case DiffersRole:
      return row.odd[run];
    case Qt::BackgroundRole:
      return row.odd[run] ? QVariant(QBrush(QColor(255, 200, 80, 110))) : QVariant();
    case Qt::ForegroundRole:
      return present ? QVariant() : QVariant(QBrush(QColor(128, 128, 128)));
    case Qt::ToolTipRole:
      return present ? QVariant() : tr("%1 has no %2").arg(m_comparison->run(run).label, row.diff.key);
  }
  return {};
}

QVariant ConfigDiffModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section > m_runs || section > m_comparison->size()) return {};
  if (section == 0) return role == Qt::DisplayRole ? tr("Key") : QVariant();
  const ComparedRun& run = m_comparison->run(section - 1);
  if (role == Qt::DisplayRole) return run.label;
  if (role == Qt::ForegroundRole) return QBrush(m_comparison->runColour(section - 1));  // headers show no colour icons
  if (role == Qt::ToolTipRole)  // the whole name first: the header elides a long one
    return run.label + '\n' + (run.config.error.empty() ? run.runDir : QString::fromStdString(run.config.error));
  return {};
}

}  // namespace traindeck
