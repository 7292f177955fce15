// The run list's summary index: per run, each metric's last, min, max and best step, its config
// keys, and for another tool's run its row, so the list draws (and filters and sorts) from it
// without opening a metrics file. Entries are cached on disk, one small JSON file per run keyed by
// its path and stamped with its files' sizes and times; a restart reads them back and parses only
// what changed since. A worker thread owned here builds and saves entries (a TrainDeck run's
// metrics.jsonl read on from where its entry stopped, another tool's run read whole by its reader)
// and removes the cache files of runs that are gone; the GUI thread reads them.
#pragma once

#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QThread>
#include <atomic>
#include <memory>

#include "imported_runs.h"
#include "run_index_entry.h"

namespace traindeck {

class RunIndex : public QObject {
  Q_OBJECT
 public:
  // `cacheDir` holds the entries' files; empty: kept in memory only.
  explicit RunIndex(const QString& cacheDir, QObject* parent = nullptr);
  ~RunIndex() override;  // waits for the entry being built, no longer

  // $XDG_CACHE_HOME/traindeck/run-index (~/.cache/... without it).
  static QString defaultCacheDir();
  QString cacheDir() const { return m_cacheDir; }

  // The run's entry as last built, from memory or its cache file (a file that is not a readable
  // entry counts as none); nullptr when there is none. Valid until the next call that changes it.
  const RunIndexEntry* entry(const QString& path);
  // Asks the worker to bring a TrainDeck run's entry up to date (once: a run already asked for is
  // not asked again until its entry arrives). entryAvailable says when it has.
  void refreshTrainDeckRun(const QString& runDir);
  // Asks the worker to read another tool's run whole and build its entry, stamped with
  // `signature` (asked once, as refreshTrainDeckRun). A run it cannot read (ImportError) is not
  // asked again while its files keep that signature; importUnreadable says when one could not.
  void refreshImportedRun(const QString& address, const RunSource& source, const ImportSignature& signature);
  // The worker's read of the run failed with its files at this signature.
  bool unreadable(const QString& address, const ImportSignature& signature) const;
  // Asks the worker to remove the cache files of runs that are gone (a TrainDeck run's folder, or
  // the file or folder another tool's run's address names); goneEntriesRemoved says how many.
  void removeGoneEntries();

  // Every metric name of the entries in memory: loss, val_loss, lr, grad_norm first, then
  // TrainDeck's other columns, then the rest in name order.
  QStringList metricNames() const;
  // Bytes of metrics.jsonl files the worker parsed since this index was made (0 on a start
  // whose cache was current).
  qint64 bytesParsed() const { return m_bytesParsed.load(); }
  // Other tools' runs the worker read (whole, by their readers) since this index was made.
  int importsRead() const { return m_importsRead.load(); }
  // No entry is being built.
  bool idle() const { return m_pending.isEmpty(); }

 signals:
  void entryAvailable(const QString& path);
  void importUnreadable(const QString& address, const QString& why);
  void goneEntriesRemoved(int count);

 private:
  void take(RunIndexEntry entry);  // in the GUI thread: an entry from the worker

  QString m_cacheDir;
  QHash<QString, RunIndexEntry> m_entries;       // by path; GUI thread only
  QSet<QString> m_notCached;                     // paths whose cache file was looked for in vain
  QSet<QString> m_pending;                       // runs the worker is asked to index
  QHash<QString, ImportSignature> m_unreadable;  // by address: the signature its read failed at
  std::atomic<qint64> m_bytesParsed{0};
  std::atomic<int> m_importsRead{0};
  std::atomic<bool> m_stopping{false};
  QThread m_thread;
  QObject* m_worker = nullptr;  // lives in m_thread; runs the jobs posted to it
};

}  // namespace traindeck
