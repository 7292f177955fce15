// Incremental reads go through MetricsJsonlParser, which holds a cut last line back: the entry's
// parsedBytes stops at the last newline, so a line being written is read whole next time.
#include "run_indexer.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <algorithm>

#include "config/config_flatten.h"
#include "runlog/metrics_jsonl_parser.h"
#include "runlog/run_paths.h"

namespace traindeck {

namespace {

QString runIndexHeadHash(QFile& file, qint64 bytes) {
  if (!file.seek(0)) return {};
  return QString::fromLatin1(QCryptographicHash::hash(file.read(bytes), QCryptographicHash::Sha1).toHex());
}

void readRunIndexConfig(RunIndexEntry& entry, const QString& runDir) {
  const QFileInfo info(QDir(runDir).filePath(run_file::kConfig));
  const qint64 size = info.exists() ? info.size() : -1;
  const qint64 timeMs = info.exists() ? info.lastModified().toMSecsSinceEpoch() : 0;
  if (size == entry.configSize && timeMs == entry.configTimeMs) return;
  entry.configSize = size;
  entry.configTimeMs = timeMs;
  entry.config.clear();
  QFile file(info.filePath());
  if (!file.open(QIODevice::ReadOnly)) return;
  for (const auto& [key, value] : flattenYaml(file.readAll().toStdString()).entries)
    entry.config.insert(QString::fromStdString(key), QString::fromStdString(value));
}

void forgetRunIndexMetrics(RunIndexEntry& entry) {
  entry.parsedBytes = 0;
  entry.headBytes = 0;
  entry.headHash.clear();
  entry.step = 0;
  entry.totalSteps = 0;
  entry.metrics.clear();
}

}  // namespace

qint64 updateTrainDeckRunEntry(RunIndexEntry& entry, const QString& runDir, const std::atomic<bool>* stop) {
  entry.kind = RunIndexEntry::Kind::TrainDeck;
  entry.path = QFileInfo(runDir).absoluteFilePath();
  readRunIndexConfig(entry, runDir);
  QFile file(QDir(runDir).filePath(run_file::kMetrics));
  const QFileInfo info(file.fileName());
  if (!info.exists() || !file.open(QIODevice::ReadOnly)) {
    forgetRunIndexMetrics(entry);
    entry.size = -1;
    entry.timeMs = 0;
    return 0;
  }
  const qint64 size = info.size();  // read up to here: what grows meanwhile is for the next update
  const qint64 timeMs = info.lastModified().toMSecsSinceEpoch();
  if (entry.parsedBytes > size || (entry.headBytes > 0 && runIndexHeadHash(file, entry.headBytes) != entry.headHash))
    forgetRunIndexMetrics(entry);
  MetricsJsonlParser parser;
  qint64 offset = entry.parsedBytes, parsed = 0;
  if (!file.seek(offset)) return 0;
  while (offset + parsed < size && !(stop != nullptr && stop->load())) {
    const QByteArray chunk = file.read(std::min(kRunIndexChunkBytes, size - offset - parsed));
    if (chunk.isEmpty()) break;
    MetricsBatch batch;
    parser.feedInto(std::string_view(chunk.constData(), static_cast<std::size_t>(chunk.size())), batch);
    parsed += chunk.size();
    summarizeBatch(batch, entry.metrics);
    if (batch.train.size() > 0) entry.step = batch.train.step.back();
    if (batch.hasHeader) entry.totalSteps = batch.header.totalSteps;
  }
  entry.parsedBytes = offset + parsed - static_cast<qint64>(parser.pendingBytes());
  if (entry.headBytes < kRunIndexHeadBytes && entry.parsedBytes > entry.headBytes) {
    entry.headBytes = std::min(kRunIndexHeadBytes, entry.parsedBytes);
    entry.headHash = runIndexHeadHash(file, entry.headBytes);
  }
  // Stopped early, the entry says it is older than the file: it is brought up to date next time.
  const bool whole = offset + parsed == size;
  entry.size = whole ? size : -2;
  entry.timeMs = whole ? timeMs : 0;
  return parsed;
}

RunIndexEntry importedRunEntry(const ImportedRun& run, const QString& address, const QString& badge,
                               const ImportSignature& signature) {
  const RunSummary summary = importedRunSummary(run, address, QString());
  RunIndexEntry entry{.kind = RunIndexEntry::Kind::Imported,
                      .path = address,
                      .size = signature.bytes,
                      .timeMs = signature.newestMs,
                      .files = signature.files,
                      .parsedBytes = 0,
                      .headBytes = 0,
                      .headHash = {},
                      .configSize = -1,
                      .configTimeMs = 0,
                      .step = summary.step,
                      .totalSteps = 0,
                      .name = summary.name,
                      .created = summary.created,
                      .badge = badge,
                      .metrics = {},
                      .config = {}};
  summarizeImportedRun(run, entry.metrics);
  for (const auto& [key, value] : run.config)
    entry.config.insert(QString::fromStdString(key), QString::fromStdString(value));
  return entry;
}

RunSummary indexedImportedRunSummary(const RunIndexEntry& entry, const QString& listName) {
  RunSummary s;
  s.id = listName;
  s.name = entry.name;
  s.path = entry.path;
  s.created = entry.created;
  s.step = entry.step;
  s.lastLoss = entry.lastLoss();
  return s;
}

int removeGoneRunIndexEntries(const QString& cacheDir, const std::atomic<bool>* stop) {
  int removed = 0;
  for (const QFileInfo& file : QDir(cacheDir).entryInfoList({QStringLiteral("*.json")}, QDir::Files)) {
    if (stop != nullptr && stop->load()) break;
    const std::optional<RunIndexEntry> entry = readRunIndexEntryFile(file.filePath());
    if (!entry) continue;
    const QString runPath = entry->kind == RunIndexEntry::Kind::Imported ? importedRunPath(entry->path) : entry->path;
    if (!QFileInfo::exists(runPath) && QFile::remove(file.filePath())) ++removed;
  }
  return removed;
}

}  // namespace traindeck
