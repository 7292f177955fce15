// inotify wakes the follower at once; the 200 ms timer covers file systems without it and the
// moment a watched file is renamed away. A large backlog is read 64 MiB per poll, the next
// poll queued at once, so a long run's history arrives as a few big batches.
#include "metrics_follower.h"

#include <fcntl.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QTimer>

#include "app_metatypes.h"
#include "runlog/file_tail.h"
#include "runlog/metrics_preview.h"
#include "runlog/run_paths.h"

namespace traindeck {

MetricsFollower::MetricsFollower(const QString& runDir, MetricsCache cache, QObject* parent)
    : QObject(parent),
      m_dir(runDir),
      m_path(QFileInfo(QDir(runDir).filePath(run_file::kMetrics)).absoluteFilePath()),
      m_cache(std::move(cache)) {
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

void MetricsFollower::openHistory(MetricsBatch& batch) {
  const qint64 size = QFileInfo(m_path).size();
  m_keeping = m_cache.enabled() && size >= MetricsCache::kFromBytes;
  if (m_keeping) {
    if (std::optional<MetricsCache::Loaded> loaded = m_cache.load(m_path)) {
      batch = std::move(loaded->batch);
      m_cachedBytes = m_startBytes = loaded->recordBytes;
      m_sampled = std::move(loaded->fingerprint);
      m_tail = std::make_unique<FileTail>(m_path.toStdString(), m_cachedBytes);
      return;
    }
  }
  if (size < static_cast<qint64>(kPreviewFromBytes)) return;  // a poll or two of the tail
  MetricsBatch preview = metricsPreview(m_path.toStdString(), kPreviewSamples);
  const bool previewed = !preview.empty();
  if (previewed) emit metricsAvailable(std::make_shared<MetricsBatch>(std::move(preview)), true);
  if (readHistory(batch))
    batch.restart = previewed;  // the preview goes
  else
    m_replacingPreview = previewed;  // read by the tail then, and held until whole
}

bool MetricsFollower::readHistory(MetricsBatch& batch) {
  const int fd = ::open(QFile::encodeName(m_path).constData(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::optional<MetricsFileRecords> records = parseMetricsFile(fd);
  std::optional<PrefixFingerprint> sampled;
  if (records && m_keeping) sampled = PrefixFingerprint::ofFile(fd, records->recordBytes);
  ::close(fd);
  if (!records) return false;
  batch = std::move(records->batch);
  m_startBytes = records->recordBytes;
  if (sampled)
    m_sampled = std::move(*sampled);
  else
    stopKeeping();
  m_tail = std::make_unique<FileTail>(m_path.toStdString(), m_startBytes);
  return true;
}

void MetricsFollower::poll() {
  m_pollQueued = false;
  MetricsBatch batch;  // from the cache at first, maybe
  const bool opening = !m_opened;
  if (opening) {
    m_opened = true;
    openHistory(batch);
  }
  FileTail::Chunk chunk = m_tail->read(kMaxBytesPerPoll);
  // Read from where the cache or the history ends, or from the start: then what they held is
  // void (the file was cut or replaced between their reading and this one).
  const std::int64_t chunkStart = m_tail->offset() - static_cast<std::int64_t>(chunk.bytes.size());
  if (opening && m_startBytes > 0 && chunkStart != m_startBytes) chunk.restart = true;
  if (chunk.restart) {
    m_parser.reset();
    batch = MetricsBatch{};
    batch.restart = true;
    m_cachedBytes = m_startBytes = 0;
    m_sampled = PrefixFingerprint{};
  }
  if (m_keeping) {
    if (chunkStart == m_sampled.bytes())
      m_sampled.feed(chunk.bytes);
    else
      stopKeeping();  // not the bytes after those sampled: nothing to vouch for a cache
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
  // Kept for the cache only when a save may follow: a batch that was the follower's alone
  // when it was received is taken by the session, not copied.
  if (m_keeping && !chunk.more && m_cachedBytes > 0 &&
      m_tail->offset() - static_cast<std::int64_t>(m_parser.pendingBytes()) - m_cachedBytes < kResaveBytes)
    stopKeeping();
  if (!batch.empty()) {
    // Made mutable, so that the receiver of a batch handed over may take its columns.
    SharedMetricsBatch sent = std::make_shared<MetricsBatch>(std::move(batch));
    if (m_keeping) m_kept.push_back(sent);
    // The first reading's end: the cache is written before the batch goes, which the session
    // may then take instead of copying it (a copy of a million records, in fresh memory, took
    // 18-80 ms; the write takes about 20).
    if (m_keeping && !chunk.more) saveKept();
    emit metricsAvailable(sent, !m_keeping);
  }
  if (m_keeping && !chunk.more) saveKept();
}

void MetricsFollower::saveKept() {
  // All there was is read: the records of the whole lines so far go to the cache, unless it
  // already holds nearly all of them.
  const std::int64_t recordBytes = m_tail->offset() - static_cast<std::int64_t>(m_parser.pendingBytes());
  if (recordBytes >= MetricsCache::kFromBytes && recordBytes - m_cachedBytes >= kResaveBytes) {
    if (m_kept.size() == 1) {
      m_cache.save(m_path, *m_kept.front(), recordBytes, m_sampled);  // the usual case: no copy
    } else {
      MetricsBatch all;
      for (const SharedMetricsBatch& b : m_kept) appendBatch(all, MetricsBatch(*b));
      m_cache.save(m_path, all, recordBytes, m_sampled);
    }
  }
  stopKeeping();
}

void MetricsFollower::stopKeeping() {
  m_keeping = false;
  m_kept.clear();
  m_sampled = PrefixFingerprint{};
}

}  // namespace traindeck
