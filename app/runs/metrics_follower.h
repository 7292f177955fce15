// Follows <run>/metrics.jsonl from byte 0 and emits what new lines hold as MetricsBatch values.
// A long history (kPreviewFromBytes and more) comes first as a preview, a sample of its lines
// (runlog/metrics_preview.h), then whole, in one batch marked restart that replaces it.
// Threading: a plain QObject; its owner moves it to a worker QThread and then invokes start()
// there (queued), and deletes it there (deleteLater before quitting the thread). The watcher
// and poll timer are made in start(), so they live in that thread. Receivers get batches by
// queued connection; each batch is an independent value.
#pragma once

#include <QObject>
#include <QString>
#include <memory>

#include "app_metatypes.h"  // before moc's code for the signals below uses the type
#include "runlog/metrics_batch.h"
#include "runlog/metrics_jsonl_parser.h"

class QFileSystemWatcher;
class QTimer;

namespace traindeck {

class FileTail;

class MetricsFollower : public QObject {
  Q_OBJECT
 public:
  static constexpr int kPollMs = 200;  // fallback when inotify says nothing (NFS, sshfs)
  static constexpr std::size_t kMaxBytesPerPoll = 64u << 20;
  static constexpr std::size_t kPreviewFromBytes = 32u << 20;  // ~150,000 train records
  static constexpr std::size_t kPreviewSamples = 8192;         // a few per pixel column

  explicit MetricsFollower(const QString& runDir, QObject* parent = nullptr);
  ~MetricsFollower() override;

  QString metricsPath() const { return m_path; }

 public slots:
  void start();
  void stop();
  // Reads what is new and emits at most one batch, never an empty one. Public for tests.
  void poll();

 signals:
  void metricsAvailable(const traindeck::MetricsBatch& batch);

 private:
  void watchFile();

  QString m_dir;
  QString m_path;
  std::unique_ptr<FileTail> m_tail;
  MetricsJsonlParser m_parser;
  QFileSystemWatcher* m_watcher = nullptr;
  QTimer* m_timer = nullptr;
  bool m_pollQueued = false;
  bool m_previewChecked = false;
  bool m_replacingPreview = false;  // a preview was sent: the history is held until it is whole
  MetricsBatch m_held;
};

}  // namespace traindeck
