// The stamp is read and checked against metrics.jsonl first (a few hundred small reads), so a
// stale cache costs no read of its records; the records are then read whole and checksummed.
#include "metrics_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QThread>
#include <filesystem>

#include "metrics_cache_file.h"

namespace traindeck {

namespace {

constexpr char kSuffix[] = ".metrics";

std::string local(const QString& path) {
  return QFile::encodeName(path).toStdString();
}

struct FileState {
  std::int64_t size = 0, modifiedNs = 0;
};

FileState stateOf(const struct stat& st) {
  return {static_cast<std::int64_t>(st.st_size),
          static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

// The file still begins with the bytes `stamp` was taken of. Fills `atRecords` with the
// fingerprint of its first stamp.recordBytes bytes.
bool stillBeginsAlike(int fd, const MetricsCacheStamp& stamp, std::optional<PrefixFingerprint>& atRecords) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return false;
  const FileState now = stateOf(st);
  if (stamp.recordBytes < 0 || stamp.sampledBytes < stamp.recordBytes || now.size < stamp.sampledBytes) return false;
  // At the size it had, another time: rewritten in place (an append would have grown it).
  if (now.size == stamp.fileSize && now.modifiedNs != stamp.modifiedNs) return false;
  // What follows the records is a partial line, at most the parser's longest.
  const std::int64_t partial = stamp.sampledBytes - stamp.recordBytes;
  if (partial > (2 << 20)) return false;
  atRecords = PrefixFingerprint::ofFile(fd, stamp.recordBytes);
  if (!atRecords) return false;
  std::string rest(static_cast<std::size_t>(partial), '\0');
  if (partial > 0 && ::pread(fd, rest.data(), rest.size(), static_cast<off_t>(stamp.recordBytes)) != partial)
    return false;
  PrefixFingerprint sampled = *atRecords;
  sampled.feed(rest);
  return sampled.value() == stamp.fingerprint;
}

}  // namespace

QString MetricsCache::defaultDir() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation))
      .filePath(QStringLiteral("traindeck/metrics"));
}

QString MetricsCache::fileFor(const QString& metricsPath) const {
  const QByteArray hash = QCryptographicHash::hash(metricsPath.toUtf8(), QCryptographicHash::Sha1).toHex();
  return QDir(m_dir).filePath(QString::fromLatin1(hash) + QLatin1String(kSuffix));
}

std::optional<MetricsCache::Loaded> MetricsCache::load(const QString& metricsPath) const {
  if (!enabled()) return std::nullopt;
  const std::string file = local(fileFor(metricsPath));
  const std::optional<MetricsCacheStamp> stamp = readMetricsCacheStamp(file);
  if (!stamp || stamp->path != local(metricsPath)) return std::nullopt;  // none, or another file's
  const int fd = ::open(local(metricsPath).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<PrefixFingerprint> atRecords;
  const bool alike = stillBeginsAlike(fd, *stamp, atRecords);
  ::close(fd);
  if (!alike) return std::nullopt;
  std::optional<MetricsCacheContents> contents = readMetricsCacheFile(file);
  if (!contents || contents->stamp != *stamp) return std::nullopt;
  return Loaded{std::move(contents->batch), stamp->recordBytes, std::move(*atRecords)};
}

bool MetricsCache::save(const QString& metricsPath, const MetricsBatch& batch, std::int64_t recordBytes,
                        const PrefixFingerprint& sampled) const {
  if (!enabled() || recordBytes > sampled.bytes() || !QDir().mkpath(m_dir)) return false;
  struct stat st {};
  if (::stat(local(metricsPath).c_str(), &st) != 0) return false;
  const FileState now = stateOf(st);
  const MetricsCacheStamp stamp{.path = local(metricsPath),
                                .recordBytes = recordBytes,
                                .sampledBytes = sampled.bytes(),
                                .fingerprint = sampled.value(),
                                .fileSize = now.size,
                                .modifiedNs = now.modifiedNs};
  const QString target = fileFor(metricsPath);
  // One temporary name per thread: two writers never share one.
  const QString temporary =
      target + QStringLiteral(".tmp-%1").arg(reinterpret_cast<quintptr>(QThread::currentThreadId()), 0, 16);
  std::error_code error;
  const bool written = writeMetricsCacheFile(local(temporary), stamp, batch);
  if (written) std::filesystem::rename(local(temporary), local(target), error);
  if (!written || error) {
    QFile::remove(temporary);
    return false;
  }
  return true;
}

int MetricsCache::removeGone() const {
  if (!enabled()) return 0;
  int removed = 0;
  // What a save cut short left (a save under way meanwhile then fails, and is made again).
  for (const QFileInfo& file :
       QDir(m_dir).entryInfoList({QStringLiteral("*") + kSuffix + QStringLiteral(".tmp-*")}, QDir::Files))
    removed += QFile::remove(file.filePath()) ? 1 : 0;
  for (const QFileInfo& file : QDir(m_dir).entryInfoList({QStringLiteral("*") + kSuffix}, QDir::Files)) {
    const std::optional<MetricsCacheStamp> stamp = readMetricsCacheStamp(local(file.filePath()));
    std::error_code error;
    if (stamp && std::filesystem::exists(stamp->path, error)) continue;
    removed += QFile::remove(file.filePath()) ? 1 : 0;
  }
  return removed;
}

}  // namespace traindeck
