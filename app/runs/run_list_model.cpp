// A rescan builds the new sorted list (rereading only runs whose files changed size or time),
// then merges it into the rows: removals first, then per position an update, a move or an
// insertion, so every change reaches views as the smallest model signal.
#include "run_list_model.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QTimer>
#include <algorithm>
#include <unordered_map>

#include "config/config_flatten.h"
#include "runlog/run_paths.h"

namespace traindeck {

RunListModel::RunListModel(QObject* parent, const QString& indexCacheDir)
    : QAbstractTableModel(parent), m_index(new RunIndex(indexCacheDir, this)) {
  m_watcher = new QFileSystemWatcher(this);
  m_timer = new QTimer(this);
  m_timer->setInterval(kRescanMs);
  m_coalesce = new QTimer(this);
  m_coalesce->setSingleShot(true);
  m_coalesce->setInterval(100);
  connect(m_timer, &QTimer::timeout, this, &RunListModel::rescan);
  connect(m_coalesce, &QTimer::timeout, this, &RunListModel::rescan);
  connect(m_watcher, &QFileSystemWatcher::directoryChanged, m_coalesce, qOverload<>(&QTimer::start));
  m_indexRedraw = new QTimer(this);
  m_indexRedraw->setSingleShot(true);
  m_indexRedraw->setInterval(100);
  const auto arrived = [this](const QString& path) {
    m_indexArrived.insert(path);
    if (!m_indexRedraw->isActive()) m_indexRedraw->start();
  };
  connect(m_index, &RunIndex::entryAvailable, this, arrived);
  connect(m_index, &RunIndex::importUnreadable, this, arrived);  // a run never read is listed no more
  connect(m_indexRedraw, &QTimer::timeout, this, &RunListModel::takeIndexEntries);
}

RunListModel::~RunListModel() = default;

void RunListModel::setRunsRoot(const QString& root) {
  beginResetModel();
  m_rows.clear();
  endResetModel();
  if (!m_watcher->directories().isEmpty()) m_watcher->removePaths(m_watcher->directories());
  m_root = root;
  m_timer->start();
  rescan();
}

int RunListModel::rowOfPath(const QString& runDir) const {
  const QString path = QFileInfo(runDir).absoluteFilePath();
  for (std::size_t i = 0; i < m_rows.size(); ++i)
    if (m_rows[i].path == path) return static_cast<int>(i);
  return -1;
}

void RunListModel::setLinkNote(const QString& runDir, const QString& note) {
  const QString path = QFileInfo(runDir).absoluteFilePath();
  if (m_linkNotes.value(path) == note) return;
  m_linkNotes[path] = note;
  if (const int row = rowOfPath(path); row >= 0) emit dataChanged(index(row, WhereColumn), index(row, WhereColumn));
}

void RunListModel::setJobActive(const QString& runDir, bool active) {
  const QString path = QFileInfo(runDir).absoluteFilePath();
  if (m_activeJobs.contains(path) == active) return;
  if (active)
    m_activeJobs.insert(path);
  else
    m_activeJobs.remove(path);
  if (const int row = rowOfPath(path); row >= 0) emit dataChanged(index(row, StatusColumn), index(row, StatusColumn));
}

void RunListModel::setJobHosts(const QString& runDir, const QStringList& hosts) {
  const QString path = QFileInfo(runDir).absoluteFilePath();
  if (m_jobHosts.value(path) == hosts) return;
  m_jobHosts[path] = hosts;
  if (const int row = rowOfPath(path); row >= 0) emit dataChanged(index(row, WhereColumn), index(row, WhereColumn));
}

QString RunListModel::whereOf(const RunSummary& run) const {
  if (!run.remoteSpec.isEmpty()) return run.remoteSpec;
  if (const QStringList hosts = m_jobHosts.value(run.path); !hosts.isEmpty()) return hosts.join(QStringLiteral(", "));
  // run.json's host is this machine's name for a run here; a remote start that failed before it
  // wrote remote.json names its host spec there.
  static const QString here = QString::fromStdString(hostName());
  return run.host.isEmpty() || run.host == here ? QString() : run.host;
}

QString RunListModel::statusOf(const RunSummary& run) const {
  if (m_imported.contains(run.path)) return tr("imported");
  if (!run.status && m_activeJobs.contains(run.path)) return QStringLiteral("starting");
  return run.statusName();
}

bool RunListModel::isImported(const QString& runDir) const {
  return m_imported.contains(QFileInfo(runDir).absoluteFilePath());
}

void RunListModel::rescan() {
  merge(scan());
  updateWatches();
  // After the rows are drawn: the index's thread does not compete with the first draw.
  for (const QString& runDir : std::as_const(m_toIndex)) m_index->refreshTrainDeckRun(runDir);
  m_toIndex.clear();
  for (const ImportToRead& run : m_importsToRead) m_index->refreshImportedRun(run.address, run.source, run.signature);
  m_importsToRead.clear();
  if (!m_goneEntriesAsked) {  // behind the entries just asked for, in the index's thread
    m_goneEntriesAsked = true;
    m_index->removeGoneEntries();
  }
}

void RunListModel::merge(std::vector<RunSummary> fresh) {
  std::unordered_map<QString, std::size_t> wanted;
  for (std::size_t i = 0; i < fresh.size(); ++i) wanted.emplace(fresh[i].path, i);
  for (int i = static_cast<int>(m_rows.size()) - 1; i >= 0; --i) {
    if (wanted.count(m_rows[static_cast<std::size_t>(i)].path)) continue;
    beginRemoveRows({}, i, i);
    m_rows.erase(m_rows.begin() + i);
    endRemoveRows();
  }
  for (std::size_t i = 0; i < fresh.size(); ++i) {
    const int row = static_cast<int>(i);
    if (i < m_rows.size() && m_rows[i].path == fresh[i].path) {
      const bool changed = !m_rows[i].sameContent(fresh[i]);
      m_rows[i] = std::move(fresh[i]);
      if (changed) emit dataChanged(index(row, 0), index(row, columnCount() - 1));
      continue;
    }
    std::size_t j = i + 1;
    while (j < m_rows.size() && m_rows[j].path != fresh[i].path) ++j;
    if (j < m_rows.size()) {  // it moved up (its "created" changed)
      beginMoveRows({}, static_cast<int>(j), static_cast<int>(j), {}, row);
      RunSummary moved = std::move(m_rows[j]);
      m_rows.erase(m_rows.begin() + static_cast<std::ptrdiff_t>(j));
      m_rows.insert(m_rows.begin() + row, std::move(moved));
      endMoveRows();
      const bool changed = !m_rows[i].sameContent(fresh[i]);
      m_rows[i] = std::move(fresh[i]);
      if (changed) emit dataChanged(index(row, 0), index(row, columnCount() - 1));
    } else {
      beginInsertRows({}, row, row);
      m_rows.insert(m_rows.begin() + row, std::move(fresh[i]));
      endInsertRows();
    }
  }
}

void RunListModel::updateWatches() {
  // The root for runs that come and go, each run folder for run.json's atomic rewrites.
  QStringList want;
  if (!m_root.isEmpty() && QFileInfo::exists(m_root)) want << QFileInfo(m_root).absoluteFilePath();
  for (const RunSummary& r : m_rows)
    if (!m_imported.contains(r.path)) want << r.path;  // other tools' runs: the rescan's stat
  const QStringList have = m_watcher->directories();
  QStringList gone, added;
  for (const QString& p : have)
    if (!want.contains(p)) gone << p;
  for (const QString& p : want)
    if (!have.contains(p)) added << p;
  if (!gone.isEmpty()) m_watcher->removePaths(gone);
  if (!added.isEmpty()) m_watcher->addPaths(added);
}

int RunListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RunListModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : firstMetricColumn() + static_cast<int>(m_metricColumns.size());
}

void RunListModel::setMetricColumns(const QList<MetricColumn>& columns) {
  if (columns == m_metricColumns) return;
  beginResetModel();
  m_metricColumns = columns;
  endResetModel();
}

void RunListModel::takeIndexEntries() {
  // Another tool's row is drawn whole from its entry (its step, loss, time and so its place in
  // the list): a rescan draws it and moves it where it sorts.
  if (std::any_of(m_indexArrived.cbegin(), m_indexArrived.cend(),
                  [this](const QString& path) { return m_imported.contains(path); }))
    rescan();
  // One signal over the rows whose entries arrived, for the columns drawn from the index: a view
  // fits its columns once per burst, not once per run.
  int first = static_cast<int>(m_rows.size()), last = -1;
  for (const QString& path : std::as_const(m_indexArrived))
    if (const int row = rowOfPath(path); row >= 0) {
      first = std::min(first, row);
      last = std::max(last, row);
    }
  m_indexArrived.clear();
  if (last >= 0 && columnCount() > ColumnCount)
    emit dataChanged(index(first, ColumnCount), index(last, columnCount() - 1));
}

void RunListModel::setConfigColumns(const QStringList& keys) {
  if (keys == m_configKeys) return;
  beginResetModel();
  m_configKeys = keys;
  endResetModel();
}

QString RunListModel::configValue(const RunSummary& run, const QString& key) const {
  if (const auto imported = m_imported.constFind(run.path); imported != m_imported.cend())
    return imported->config.value(key);
  if (const RunIndexEntry* indexed = m_index->entry(run.path); indexed != nullptr && indexed->configSize >= 0)
    return indexed->config.value(key);
  auto it = m_configValues.find(run.path);
  if (it == m_configValues.end()) {  // a run's config.yaml does not change: read once
    QHash<QString, QString> values;
    QFile file(QDir(run.path).filePath(run_file::kConfig));
    if (file.open(QIODevice::ReadOnly))
      for (const auto& [k, v] : flattenYaml(file.readAll().toStdString()).entries)
        values.insert(QString::fromStdString(k), QString::fromStdString(v));
    it = m_configValues.insert(run.path, values);
  }
  return it->value(key);
}

QVariant RunListModel::field(const RunSummary& run, int column, bool forDisplay) const {
  if (column >= firstMetricColumn())
    return m_metricColumns.value(column - firstMetricColumn()).value(m_index->entry(run.path), forDisplay);
  if (column >= ColumnCount) {
    const QString value = configValue(run, m_configKeys.value(column - ColumnCount));
    bool number = false;
    const double asNumber = value.toDouble(&number);
    return !forDisplay && number ? QVariant(asNumber) : QVariant(value);  // numbers sort as numbers
  }
  switch (column) {
    case IdColumn:
      return run.id;
    case NameColumn:
      return run.name;
    case StatusColumn:
      return statusOf(run);
    case StepColumn:
      return run.step;
    case TotalStepsColumn:
      return run.totalSteps;
    case LastLossColumn:
      if (forDisplay) return std::isnan(run.lastLoss) ? QString() : QString::number(run.lastLoss, 'f', 4);
      return run.lastLoss;
    case CreatedColumn:
      return run.created;
    case PathColumn:
      return run.path;
    case WhereColumn: {
      const QString where = whereOf(run);
      if (where.isEmpty()) return tr("this machine");
      const QString note = m_linkNotes.value(run.path);
      return note.isEmpty() ? where : where + " · " + note;
    }
    case SourceColumn:
      return m_imported.value(run.path).badge;
    default:
      return {};
  }
}

QVariant RunListModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const RunSummary& run = m_rows[static_cast<std::size_t>(index.row())];
  if (role == Qt::DisplayRole) return field(run, index.column(), true);
  if (role == Qt::EditRole) return field(run, index.column(), false);
  // A long name is elided in its cell (the list's columns have a width of their own): whole here.
  if (role == Qt::ToolTipRole && (index.column() == NameColumn || index.column() == IdColumn))
    return field(run, index.column(), true);
  if (role == Qt::TextAlignmentRole && (index.column() >= firstMetricColumn() || index.column() == StepColumn ||
                                        index.column() == TotalStepsColumn || index.column() == LastLossColumn))
    return static_cast<int>(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole && index.column() == SourceColumn && m_imported.contains(run.path))
    return tr("A run of %1, read-only here: TrainDeck shows and compares it, and never writes its files.")
        .arg(m_imported.value(run.path).badge);
  if (role >= IdRole && role <= SourceRole) return field(run, role - IdRole, false);
  return {};
}

QVariant RunListModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* const kTitles[ColumnCount] = {"Id",        "Name",    "Status", "Step",  "Total steps",
                                                   "Last loss", "Created", "Path",   "Where", "Source"};
  if (section >= firstMetricColumn() && section < columnCount())
    return m_metricColumns.value(section - firstMetricColumn()).title();
  if (section >= ColumnCount && section < columnCount()) return m_configKeys.value(section - ColumnCount);
  if (section < 0 || section >= ColumnCount) return {};
  return tr(kTitles[section]);
}

QHash<int, QByteArray> RunListModel::roleNames() const {
  QHash<int, QByteArray> names = QAbstractTableModel::roleNames();
  names.insert(IdRole, "id");
  names.insert(NameRole, "name");
  names.insert(StatusRole, "status");
  names.insert(StepRole, "step");
  names.insert(TotalStepsRole, "totalSteps");
  names.insert(LastLossRole, "lastLoss");
  names.insert(CreatedRole, "created");
  names.insert(PathRole, "path");
  names.insert(WhereRole, "where");
  names.insert(SourceRole, "source");
  return names;
}

}  // namespace traindeck
