// The cache file is JSON: {"version", "kind", "path", the signature, the row's fields,
// "metrics": {name: {count, last, last_step, min, min_step, max, max_step}}, "config": {key: text}}.
// Steps are stored as JSON numbers (exact below 2^53).
#include "run_index_entry.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QThread>
#include <filesystem>
#include <system_error>

#include "runlog/metrics_keys.h"

namespace traindeck {

namespace {

QJsonObject encodeMetricSummary(const MetricSummary& m) {
  return {{"count", m.count},      {"last", m.last}, {"last_step", m.lastStep}, {"min", m.min},
          {"min_step", m.minStep}, {"max", m.max},   {"max_step", m.maxStep}};
}

std::optional<MetricSummary> decodeMetricSummary(const QJsonValue& value) {
  const QJsonObject o = value.toObject();
  for (const char* key : {"count", "last", "last_step", "min", "min_step", "max", "max_step"})
    if (!o.value(QLatin1String(key)).isDouble()) return std::nullopt;
  return MetricSummary{.count = o.value("count").toInteger(),
                       .last = o.value("last").toDouble(),
                       .lastStep = o.value("last_step").toInteger(),
                       .min = o.value("min").toDouble(),
                       .minStep = o.value("min_step").toInteger(),
                       .max = o.value("max").toDouble(),
                       .maxStep = o.value("max_step").toInteger()};
}

}  // namespace

const MetricSummary* RunIndexEntry::metric(const QString& name) const {
  const auto it = metrics.constFind(name);
  return it == metrics.cend() ? nullptr : &*it;
}

double RunIndexEntry::lastLoss() const {
  const MetricSummary* loss = metric(QString::fromLatin1(metrics_key::kLoss.data(), metrics_key::kLoss.size()));
  return loss != nullptr ? loss->last : std::nan("");
}

QByteArray encodeRunIndexEntry(const RunIndexEntry& entry) {
  QJsonObject metrics, config;
  for (auto it = entry.metrics.cbegin(); it != entry.metrics.cend(); ++it)
    metrics.insert(it.key(), encodeMetricSummary(*it));
  for (auto it = entry.config.cbegin(); it != entry.config.cend(); ++it) config.insert(it.key(), *it);
  const QJsonObject o{{"version", RunIndexEntry::kVersion},
                      {"kind", entry.kind == RunIndexEntry::Kind::TrainDeck ? "traindeck" : "imported"},
                      {"path", entry.path},
                      {"size", entry.size},
                      {"time_ms", entry.timeMs},
                      {"files", entry.files},
                      {"parsed_bytes", entry.parsedBytes},
                      {"head_bytes", entry.headBytes},
                      {"head_hash", entry.headHash},
                      {"config_size", entry.configSize},
                      {"config_time_ms", entry.configTimeMs},
                      {"step", entry.step},
                      {"total_steps", entry.totalSteps},
                      {"name", entry.name},
                      {"created", entry.created},
                      {"badge", entry.badge},
                      {"metrics", metrics},
                      {"config", config}};
  return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

std::optional<RunIndexEntry> decodeRunIndexEntry(const QByteArray& json) {
  QJsonParseError error;
  const QJsonDocument document = QJsonDocument::fromJson(json, &error);
  if (error.error != QJsonParseError::NoError || !document.isObject()) return std::nullopt;
  const QJsonObject o = document.object();
  if (o.value("version").toInt() != RunIndexEntry::kVersion || !o.value("path").isString()) return std::nullopt;
  const QString kind = o.value("kind").toString();
  if (kind != "traindeck" && kind != "imported") return std::nullopt;
  for (const char* key : {"size", "time_ms", "parsed_bytes", "step", "total_steps"})
    if (!o.value(QLatin1String(key)).isDouble()) return std::nullopt;
  RunIndexEntry entry{.kind = kind == "traindeck" ? RunIndexEntry::Kind::TrainDeck : RunIndexEntry::Kind::Imported,
                      .path = o.value("path").toString(),
                      .size = o.value("size").toInteger(),
                      .timeMs = o.value("time_ms").toInteger(),
                      .files = o.value("files").toInt(),
                      .parsedBytes = o.value("parsed_bytes").toInteger(),
                      .headBytes = o.value("head_bytes").toInteger(),
                      .headHash = o.value("head_hash").toString(),
                      .configSize = o.value("config_size").toInteger(-1),
                      .configTimeMs = o.value("config_time_ms").toInteger(),
                      .step = o.value("step").toInteger(),
                      .totalSteps = o.value("total_steps").toInteger(),
                      .name = o.value("name").toString(),
                      .created = o.value("created").toString(),
                      .badge = o.value("badge").toString(),
                      .metrics = {},
                      .config = {}};
  const QJsonObject metrics = o.value("metrics").toObject();
  for (auto it = metrics.begin(); it != metrics.end(); ++it) {
    const std::optional<MetricSummary> summary = decodeMetricSummary(*it);
    if (!summary) return std::nullopt;
    entry.metrics.insert(it.key(), *summary);
  }
  const QJsonObject config = o.value("config").toObject();
  for (auto it = config.begin(); it != config.end(); ++it) entry.config.insert(it.key(), it->toString());
  return entry;
}

QString runIndexCacheFile(const QString& cacheDir, const QString& path) {
  const QByteArray hash = QCryptographicHash::hash(path.toUtf8(), QCryptographicHash::Sha1).toHex();
  return QDir(cacheDir).filePath(QString::fromLatin1(hash) + ".json");
}

std::optional<RunIndexEntry> loadRunIndexEntry(const QString& cacheDir, const QString& path) {
  std::optional<RunIndexEntry> entry = readRunIndexEntryFile(runIndexCacheFile(cacheDir, path));
  if (entry && entry->path != path) return std::nullopt;  // another run's (a hash collision)
  return entry;
}

std::optional<RunIndexEntry> readRunIndexEntryFile(const QString& fileName) {
  QFile file(fileName);
  if (!file.open(QIODevice::ReadOnly)) return std::nullopt;
  return decodeRunIndexEntry(file.read(16 << 20));
}

bool saveRunIndexEntry(const QString& cacheDir, const RunIndexEntry& entry) {
  if (!QDir().mkpath(cacheDir)) return false;
  const QString target = runIndexCacheFile(cacheDir, entry.path);
  // One temporary name per thread: two writers never share one.
  const QString temporary =
      target + QStringLiteral(".tmp-%1").arg(reinterpret_cast<quintptr>(QThread::currentThreadId()), 0, 16);
  QFile file(temporary);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  const QByteArray bytes = encodeRunIndexEntry(entry);
  const bool written = file.write(bytes) == bytes.size();
  file.close();
  std::error_code error;
  if (written)
    std::filesystem::rename(QFile::encodeName(temporary).toStdString(), QFile::encodeName(target).toStdString(), error);
  if (!written || error) {
    QFile::remove(temporary);
    return false;
  }
  return true;
}

}  // namespace traindeck
