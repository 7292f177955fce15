// RunListModel's rescan (the rest of the class is in run_list_model.cpp): the rows of the root's
// TrainDeck runs, of other tools' runs in its entries, and of the folders opened (kept from one
// session to the next by the window), each listed once. A row is read again only when its files'
// sizes or times changed, and then from the summary index when its entry describes them (no
// metrics file opened). Another tool's run is never read here: the index's worker reads it, and
// its row waits for the entry.
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <unordered_map>

#include "imports/run_discovery.h"
#include "run_indexer.h"
#include "run_list_model.h"

namespace traindeck {

struct RunListModel::Scan {
  std::unordered_map<QString, const RunSummary*> known;  // the rows as they were, by path
  std::vector<RunSummary> rows;
  QSet<QString> listed;  // the paths (addresses) in rows
  QHash<QString, ImportSearch> searches;
  QHash<QString, ImportedRow> imported;
  QStringList toIndex;  // runs whose index entry is behind their files
  std::vector<ImportToRead> importsToRead;
  qint64 now = 0;
};

namespace {

bool isImportEntry(const RunIndexEntry* entry) {
  return entry != nullptr && entry->kind == RunIndexEntry::Kind::Imported;
}

ImportSignature stampOf(const RunIndexEntry& entry) {
  return {.bytes = entry.size, .newestMs = entry.timeMs, .files = entry.files};
}

// The folders as openedFolders keeps them: absolute and clean, each once.
QStringList cleanFolders(const QStringList& folders) {
  QStringList clean;
  for (const QString& folder : folders)
    if (const QString path = QDir::cleanPath(QFileInfo(folder).absoluteFilePath()); !clean.contains(path))
      clean << path;
  return clean;
}

}  // namespace

void RunListModel::addTrainDeckRow(Scan& scan, const QString& runDir) {
  if (scan.listed.contains(runDir)) return;
  scan.listed.insert(runDir);
  const RunSummary::Signature signature = runSignature(runDir);
  if (const auto it = scan.known.find(runDir); it != scan.known.end() && it->second->signature == signature) {
    scan.rows.push_back(*it->second);
    return;
  }
  const RunIndexEntry* indexed = m_index->entry(runDir);
  const qint64 metricsTimeMs = signature.metricsTime.isValid() ? signature.metricsTime.toMSecsSinceEpoch() : 0;
  const bool current = indexed != nullptr && indexed->describesMetrics(signature.metricsSize, metricsTimeMs);
  scan.rows.push_back(readRunSummary(runDir, current ? indexed : nullptr, &m_metricsBytesRead));
  if (!current) scan.toIndex << runDir;
}

void RunListModel::scanEntry(Scan& scan, const QFileInfo& entry, bool withTrainDeck) {
  const QString path = entry.absoluteFilePath();
  ImportSearch search = m_importSearches.value(path);
  const bool due = scan.now - search.searchedMs >= kImportSearchMs && search.tookMs < kQuickImportSearchMs;
  if (search.time != entry.lastModified() || due) {
    search.time = entry.lastModified();
    search.searchedMs = scan.now;
    try {
      search.sources = findRuns(path.toStdString());
    } catch (const std::exception&) {
      search.sources.clear();  // a folder that cannot be listed: nothing to show from it
    }
    search.tookMs = QDateTime::currentMSecsSinceEpoch() - scan.now;
  }
  for (const RunSource& source : search.sources) {
    const QString sourcePath = QFileInfo(QString::fromStdString(source.path.string())).absoluteFilePath();
    if (source.kind == SourceKind::TrainDeck) {  // a run folder deeper down: the root's are its entries
      if (withTrainDeck) addTrainDeckRow(scan, sourcePath);
      continue;
    }
    const QString address = importedRunAddress(source);
    if (scan.listed.contains(address)) continue;
    const ImportSignature signature = importSignature(sourcePath);
    ImportedRow row = m_imported.value(address);
    if (!row.fromEntry || !(row.signature == signature)) {
      const RunIndexEntry* indexed = m_index->entry(address);
      const bool current = isImportEntry(indexed) && stampOf(*indexed) == signature;
      QString listName = QString::fromStdString(source.name);
      if (entry.isDir() && sourcePath != path) listName = entry.fileName() + '/' + listName;
      if (isImportEntry(indexed) && (current || !row.fromEntry)) {  // an older entry: better than none
        row.fromEntry = true;
        row.signature = stampOf(*indexed);
        row.badge = indexed->badge;
        row.summary = indexedImportedRunSummary(*indexed, listName);
        row.config = indexed->config;
      } else if (!row.fromEntry) {
        if (m_index->unreadable(address, signature)) continue;  // not listed until its files change
        row.badge = sourceBadge(source.kind);
        row.summary = RunSummary{};
        row.summary.id = row.summary.name = listName;
        row.summary.path = address;
      }
      if (!current && scan.now - row.askedMs >= kRescanMs / 2) {  // half: a timer may fire early
        scan.importsToRead.push_back({.address = address, .source = source, .signature = signature});
        row.askedMs = scan.now;
      }
    }
    scan.listed.insert(address);
    scan.rows.push_back(row.summary);
    scan.imported.insert(address, std::move(row));
  }
  scan.searches.insert(path, std::move(search));
}

std::vector<RunSummary> RunListModel::scan() {
  Scan scan{.known = {},
            .rows = {},
            .listed = {},
            .searches = {},
            .imported = {},
            .toIndex = {},
            .importsToRead = {},
            .now = QDateTime::currentMSecsSinceEpoch()};
  for (const RunSummary& r : m_rows) scan.known.emplace(r.path, &r);
  if (!m_root.isEmpty()) {
    const QFileInfoList entries = QDir(m_root).entryInfoList(QDir::Dirs | QDir::Files | QDir::NoDotAndDotDot);
    // A remote start writes its remote.json before the run has a run.json; a job here may be
    // starting the run still.
    for (const QFileInfo& entry : entries)
      if (const QString path = entry.absoluteFilePath();
          entry.isDir() && (isTrainDeckRunFolder(path) || m_activeJobs.contains(path)))
        addTrainDeckRow(scan, path);
    for (const QFileInfo& entry : entries) {
      if (scan.listed.contains(entry.absoluteFilePath()) || entry.isSymLink()) continue;
      if (entry.fileName() == QLatin1String("comparisons.json")) continue;  // the root's own file
      scanEntry(scan, entry, false);
    }
  }
  for (const QString& folder : m_openedFolders) {
    if (isTrainDeckRunFolder(folder))
      addTrainDeckRow(scan, folder);
    else if (const QFileInfo entry(folder); entry.exists())
      scanEntry(scan, entry, true);
  }
  m_importSearches = std::move(scan.searches);
  m_imported = std::move(scan.imported);
  m_toIndex = std::move(scan.toIndex);
  m_importsToRead = std::move(scan.importsToRead);
  // Newest first: runs with a "created" before those without, then by folder name.
  std::sort(scan.rows.begin(), scan.rows.end(), [](const RunSummary& a, const RunSummary& b) {
    if (a.created.isEmpty() != b.created.isEmpty()) return b.created.isEmpty();
    if (a.created != b.created) return a.created > b.created;
    return QFileInfo(a.path).fileName() > QFileInfo(b.path).fileName();
  });
  return std::move(scan.rows);
}

RunListModel::FolderRuns RunListModel::openFolder(const QString& folder) {
  const QString path = cleanFolders({folder}).front();
  FolderRuns found;
  QStringList notRead;  // files that look like runs' but were not read, and why (an LFS pointer)
  if (isTrainDeckRunFolder(path)) {
    found.runs << path;
  } else if (QFileInfo::exists(path)) {
    RunSearch search;
    try {
      search = searchRuns(path.toStdString());
    } catch (const std::exception& e) {
      found.problem = tr("%1 cannot be read: %2").arg(path, QString::fromLocal8Bit(e.what()));
      return found;
    }
    for (const RunSource& source : search.runs)
      found.runs << (source.kind == SourceKind::TrainDeck
                         ? QFileInfo(QString::fromStdString(source.path.string())).absoluteFilePath()
                         : importedRunAddress(source));
    for (const NotRead& skipped : search.notRead) notRead << QString::fromStdString(skipped.reason);
  }
  if (found.runs.isEmpty()) {
    found.problem = tr("No runs found in %1. TrainDeck reads %2.")
                        .arg(path, QString::fromStdString(runFormatsRead()));  // the importer table's
    if (!notRead.isEmpty()) found.problem += QLatin1Char('\n') + notRead.join(QLatin1Char('\n'));
    return found;
  }
  setOpenedFolders(m_openedFolders + QStringList{path});
  return found;
}

void RunListModel::reopenFolders(const QStringList& folders) {
  QStringList existing;
  for (const QString& folder : folders)
    if (QFileInfo::exists(folder)) existing << folder;
  setOpenedFolders(m_openedFolders + existing);
}

void RunListModel::closeOpenedFolders() {
  setOpenedFolders({});
}

void RunListModel::setOpenedFolders(const QStringList& folders) {
  const QStringList clean = cleanFolders(folders);
  if (clean == m_openedFolders) return;
  m_openedFolders = clean;
  rescan();
  emit openedFoldersChanged();
}

}  // namespace traindeck
