// Follows <run>/metrics.jsonl from byte 0 and emits what new lines hold as MetricsBatch values.
// A long history (kPreviewFromBytes and more) comes first as a preview, a sample of its lines
// (runlog/metrics_preview.h), then whole (parseMetricsFile: read and parsed on several threads
// at once), in one batch marked restart that replaces it. With a
// MetricsCache, a long history read whole is kept there, and the next follower of the file starts
// from it (one batch of its records at once, no preview) and parses only the lines after it.
// Threading: a plain QObject; its owner moves it to a worker QThread and then invokes start()
// there (queued), and deletes it there (deleteLater before quitting the thread). The watcher
// and poll timer are made in start(), so they live in that thread. Receivers get batches by
// queued connection; each batch is an independent, immutable value.
#pragma once

#include <QObject>
#include <QString>
#include <memory>

#include "app_metatypes.h"  // before moc's code for the signals below uses the type
#include "metrics_cache.h"
#include "prefix_fingerprint.h"
#include "runlog/file_tail.h"
#include "runlog/metrics_batch.h"
#include "runlog/metrics_jsonl_parser.h"

class QFileSystemWatcher;
class QTimer;

namespace traindeck {

class MetricsFollower : public QObject {
  Q_OBJECT
 public:
  static constexpr int kPollMs = 200;  // fallback when inotify says nothing (NFS, sshfs)
  static constexpr std::size_t kMaxBytesPerPoll = 64u << 20;
  static constexpr std::size_t kPreviewFromBytes = 32u << 20;  // ~150,000 train records
  static constexpr std::size_t kPreviewSamples = 8192;         // a few per pixel column
  // A cache is written again when this much more than it holds was parsed.
  static constexpr std::int64_t kResaveBytes = 4 << 20;

  // With `cache` enabled, a long history is read from it and kept in it.
  explicit MetricsFollower(const QString& runDir, MetricsCache cache = {}, QObject* parent = nullptr);
  ~MetricsFollower() override;

  QString metricsPath() const { return m_path; }

 public slots:
  void start();
  void stop();
  // Reads what is new and emits at most one batch, never an empty one. Public for tests.
  void poll();

 signals:
  // A long history's batch is a million records: shared, so that the queue copies no column.
  // `handedOver`: the follower keeps no part of it, so its one receiver (the session) may take
  // its columns instead of copying them; else it is kept for the metrics cache and only read.
  void metricsAvailable(const traindeck::SharedMetricsBatch& batch, bool handedOver);

 private:
  void watchFile();
  // The first poll's: the history from the cache into `batch` (the tail then starts after it),
  // or a long one previewed, then parsed whole into `batch` at once. Sets m_keeping.
  void openHistory(MetricsBatch& batch);
  // The file's whole lines into `batch` on several threads (parseMetricsFile); the tail then
  // starts after them. False when the file could not be read.
  bool readHistory(MetricsBatch& batch);
  // Once the first reading of the history has read all there was: the batches it sent go to the
  // cache, joined (a restart batch replaces those before it).
  void saveKept();
  void stopKeeping();

  QString m_dir;
  QString m_path;
  std::unique_ptr<FileTail> m_tail;
  MetricsJsonlParser m_parser;
  QFileSystemWatcher* m_watcher = nullptr;
  QTimer* m_timer = nullptr;
  bool m_pollQueued = false;
  bool m_opened = false;
  bool m_replacingPreview = false;  // a preview was sent: the history is held until it is whole
  MetricsBatch m_held;
  MetricsCache m_cache;
  bool m_keeping = false;                  // reading the history for the cache
  std::int64_t m_cachedBytes = 0;          // what the cache held when it was loaded
  std::int64_t m_startBytes = 0;           // where the first read began: after the cache or history
  std::vector<SharedMetricsBatch> m_kept;  // the batches sent while m_keeping, in order
  PrefixFingerprint m_sampled;             // of the bytes read, while m_keeping
};

}  // namespace traindeck
