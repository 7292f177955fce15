// Thread ownership: m_entries, m_notCached, m_pending and m_unreadable are the GUI thread's. A
// job posted to the worker carries a copy of what it starts from (the entry, another tool's
// RunSource) and posts the new entry back by value; it writes the entry's cache file itself, so
// no run is read and no disk write happens in the GUI thread.
#include "run_index.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <optional>

#include "metric_series.h"
#include "run_indexer.h"

namespace traindeck {

RunIndex::RunIndex(const QString& cacheDir, QObject* parent) : QObject(parent), m_cacheDir(cacheDir) {
  m_worker = new QObject;
  m_worker->moveToThread(&m_thread);
  connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
  m_thread.setObjectName("run-index");
  m_thread.start(QThread::LowPriority);
}

RunIndex::~RunIndex() {
  m_stopping = true;
  m_thread.quit();
  m_thread.wait();
}

QString RunIndex::defaultCacheDir() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation))
      .filePath(QStringLiteral("traindeck/run-index"));
}

const RunIndexEntry* RunIndex::entry(const QString& path) {
  if (const auto it = m_entries.constFind(path); it != m_entries.cend()) return &*it;
  if (m_cacheDir.isEmpty() || m_notCached.contains(path)) return nullptr;
  std::optional<RunIndexEntry> cached = loadRunIndexEntry(m_cacheDir, path);
  if (!cached) {
    m_notCached.insert(path);
    return nullptr;
  }
  return &*m_entries.insert(path, std::move(*cached));
}

void RunIndex::refreshTrainDeckRun(const QString& dir) {
  const QString runDir = QFileInfo(dir).absoluteFilePath();  // the key updateTrainDeckRunEntry gives it
  if (m_pending.contains(runDir)) return;
  m_pending.insert(runDir);
  const RunIndexEntry* known = entry(runDir);
  QMetaObject::invokeMethod(m_worker, [this, runDir, from = known ? *known : RunIndexEntry{}]() mutable {
    if (m_stopping) return;
    m_bytesParsed += updateTrainDeckRunEntry(from, runDir, &m_stopping);
    if (m_stopping) return;
    if (!m_cacheDir.isEmpty()) saveRunIndexEntry(m_cacheDir, from);
    QMetaObject::invokeMethod(this, [this, built = std::move(from)]() mutable { take(std::move(built)); });
  });
}

void RunIndex::refreshImportedRun(const QString& address, const RunSource& source, const ImportSignature& signature) {
  if (m_pending.contains(address) || unreadable(address, signature)) return;
  m_pending.insert(address);
  QMetaObject::invokeMethod(m_worker, [this, address, source, signature] {
    if (m_stopping) return;
    std::optional<RunIndexEntry> built;
    QString why;
    try {
      built = importedRunEntry(readRun(source), address, sourceBadge(source.kind), signature);
    } catch (const std::exception& e) {  // ImportError: a file gone, a trainer_state.json not JSON
      why = QString::fromLocal8Bit(e.what());
    }
    ++m_importsRead;
    if (m_stopping) return;
    if (!built) {
      QMetaObject::invokeMethod(this, [this, address, signature, why] {
        m_pending.remove(address);
        m_unreadable.insert(address, signature);
        emit importUnreadable(address, why);
      });
      return;
    }
    if (!m_cacheDir.isEmpty()) saveRunIndexEntry(m_cacheDir, *built);
    QMetaObject::invokeMethod(this, [this, entry = std::move(*built)]() mutable { take(std::move(entry)); });
  });
}

bool RunIndex::unreadable(const QString& address, const ImportSignature& signature) const {
  const auto failed = m_unreadable.constFind(address);
  return failed != m_unreadable.cend() && *failed == signature;
}

void RunIndex::removeGoneEntries() {
  if (m_cacheDir.isEmpty()) return;
  QMetaObject::invokeMethod(m_worker, [this] {
    if (m_stopping) return;
    const int removed = removeGoneRunIndexEntries(m_cacheDir, &m_stopping);
    QMetaObject::invokeMethod(this, [this, removed] { emit goneEntriesRemoved(removed); });
  });
}

void RunIndex::take(RunIndexEntry entry) {
  const QString path = entry.path;
  m_pending.remove(path);
  m_notCached.remove(path);
  m_unreadable.remove(path);
  m_entries.insert(path, std::move(entry));
  emit entryAvailable(path);
}

QStringList RunIndex::metricNames() const {
  QSet<QString> names;
  for (const RunIndexEntry& e : m_entries)
    for (auto it = e.metrics.keyBegin(); it != e.metrics.keyEnd(); ++it) names.insert(*it);
  QStringList sorted(names.begin(), names.end());
  sorted.sort();
  return unionOfMetricNames({sorted});  // the mapped names first, as Compare lists them
}

}  // namespace traindeck
