// One run's line in the summary index (RunIndex): what the run list draws of it without opening
// its metrics: each metric's summary, its config keys, and for another tool's run the fields of
// its row. Kept with the signature of the files it was taken from, and for a TrainDeck run where
// its metrics.jsonl was read up to, so that a grown file is read on from there.
#pragma once

#include <QMap>
#include <QString>
#include <cmath>
#include <optional>

#include "metric_summary.h"

namespace traindeck {

struct RunIndexEntry {
  static constexpr int kVersion = 1;  // of the cache file; another version is not read
  enum class Kind { TrainDeck, Imported };

  Kind kind = Kind::TrainDeck;
  QString path;  // the run folder, or another tool's run's address (imported_runs.h)
  // The signature it was taken at. TrainDeck: metrics.jsonl's size (-1: none) and time;
  // imported: importSignature()'s bytes, newest time and file count.
  qint64 size = -1;
  qint64 timeMs = 0;
  int files = 0;

  // TrainDeck only: metrics.jsonl read through this byte (the end of its last whole line), and
  // a hash of its first bytes, which tell a grown file from a replaced one.
  qint64 parsedBytes = 0;
  qint64 headBytes = 0;
  QString headHash;
  qint64 configSize = -1, configTimeMs = 0;  // config.yaml's, when its keys were read

  // The row's own fields. TrainDeck: the last train record's step, the newest header's total.
  // Imported: the largest step of any metric, the first record's time, the tool's run name.
  qint64 step = 0;
  qint64 totalSteps = 0;
  QString name, created, badge;

  MetricSummaries metrics;
  QMap<QString, QString> config;  // flattened keys ("optimizer.lr") and their text

  const MetricSummary* metric(const QString& name) const;
  double lastLoss() const;  // the last finite train loss, NaN without one
  // Whether it describes metrics.jsonl as it is now (a TrainDeck run's signature).
  bool describesMetrics(qint64 metricsSize, qint64 metricsTimeMs) const {
    return kind == Kind::TrainDeck && size == metricsSize && timeMs == metricsTimeMs;
  }
  bool operator==(const RunIndexEntry&) const = default;
};

QByteArray encodeRunIndexEntry(const RunIndexEntry& entry);
// nullopt for anything that is not an entry of this version (a cut or corrupt file).
std::optional<RunIndexEntry> decodeRunIndexEntry(const QByteArray& json);

// Where a run's entry is cached in `cacheDir`: one small JSON file per run, named by a hash of
// its path (the path itself is inside, and checked on reading).
QString runIndexCacheFile(const QString& cacheDir, const QString& path);
// nullopt when there is none, or it cannot be read as an entry for `path`.
std::optional<RunIndexEntry> loadRunIndexEntry(const QString& cacheDir, const QString& path);
// The entry in one cache file, whichever run's it is; nullopt when it is not one.
std::optional<RunIndexEntry> readRunIndexEntryFile(const QString& file);
// Written to a temporary file and renamed over the old one: a reader never sees half an entry.
// Not synced to disk: a crash may lose the newest entry, which is then built again. False when
// it could not be written (the index goes on in memory).
bool saveRunIndexEntry(const QString& cacheDir, const RunIndexEntry& entry);

}  // namespace traindeck
