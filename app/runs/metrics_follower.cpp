// inotify wakes the follower at once; the 200 ms timer covers file systems without it and the
// moment a watched file is renamed away. A large backlog is read 64 MiB per poll, the next
// poll queued at once, so a long run's history arrives as a few big batches.
#include "metrics_follower.h"

#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QTimer>

#include "app_metatypes.h"
#include "runlog/file_tail.h"
#include "runlog/metrics_preview.h"
#include "runlog/run_paths.h"

namespace traindeck {

MetricsFollower::MetricsFollower(const QString& runDir, QObject* parent)
    : QObject(parent), m_dir(runDir), m_path(QDir(runDir).filePath(run_file::kMetrics)) {
  registerAppMetaTypes();
  m_tail = std::make_unique<FileTail>(m_path.toStdString());
}

MetricsFollower::~MetricsFollower() = default;

void MetricsFollower::start() {
  if (m_timer) return;
  m_watcher = new QFileSystemWatcher(this);
  m_watcher->addPath(m_dir);
  watchFile();
  connect(m_watcher, &QFileSystemWatcher::fileChanged, this, &MetricsFollower::poll);
  connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, [this] {
    watchFile();
    poll();
  });
  m_timer = new QTimer(this);
  m_timer->setInterval(kPollMs);
  connect(m_timer, &QTimer::timeout, this, &MetricsFollower::poll);
  m_timer->start();
  poll();
}

void MetricsFollower::stop() {
  delete m_timer;
  m_timer = nullptr;
  delete m_watcher;
  m_watcher = nullptr;
}

void MetricsFollower::watchFile() {
  if (m_watcher && !m_watcher->files().contains(m_path) && QFileInfo::exists(m_path)) m_watcher->addPath(m_path);
}

void MetricsFollower::poll() {
  m_pollQueued = false;
  if (!m_previewChecked) {
    m_previewChecked = true;
    if (QFileInfo(m_path).size() >= static_cast<qint64>(kPreviewFromBytes)) {
      MetricsBatch preview = metricsPreview(m_path.toStdString(), kPreviewSamples);
      if (!preview.empty()) {
        emit metricsAvailable(preview);
        m_replacingPreview = true;
      }
    }
  }
  FileTail::Chunk chunk = m_tail->read(kMaxBytesPerPoll);
  MetricsBatch batch;
  if (chunk.restart) {
    m_parser.reset();
    batch.restart = true;
  }
  m_parser.feedInto(chunk.bytes, batch);
  if (chunk.more && !m_pollQueued) {
    m_pollQueued = true;
    QMetaObject::invokeMethod(this, &MetricsFollower::poll, Qt::QueuedConnection);
  }
  if (m_replacingPreview) {
    // Whole or not at all: a part would show less of the run than the preview did.
    appendBatch(m_held, std::move(batch));
    if (chunk.more) return;
    batch = std::move(m_held);
    m_held = MetricsBatch{};
    batch.restart = true;  // the preview goes
    m_replacingPreview = false;
  }
  if (!batch.empty()) emit metricsAvailable(batch);
}

}  // namespace traindeck
