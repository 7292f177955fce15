// The tail read skips its first (probably partial) line; the head read parses only complete
// lines, so a header still being written is not misread.
#include "run_summary.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include "remote_record.h"
#include "run_index_entry.h"
#include "runlog/metrics_jsonl_parser.h"
#include "runlog/run_paths.h"

namespace traindeck {

namespace {

QByteArray readRange(QFile& file, qint64 offset, qint64 length) {
  if (!file.seek(offset)) return {};
  return file.read(length);
}

// Returns the bytes read.
qint64 readMetricsEnds(const QString& path, RunSummary& s) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return 0;
  const qint64 size = file.size();
  qint64 read = 0;
  MetricsJsonlParser parser;
  MetricsBatch batch;
  if (size > kRunSummaryTailBytes) {
    const QByteArray head = readRange(file, 0, 4096);
    read += head.size();
    parser.feedInto(std::string_view(head.constData(), static_cast<std::size_t>(head.size())), batch);
    QByteArray tail = readRange(file, size - kRunSummaryTailBytes, kRunSummaryTailBytes);
    read += tail.size();
    const qsizetype nl = tail.indexOf('\n');
    tail = nl < 0 ? QByteArray() : tail.mid(nl + 1);
    MetricsJsonlParser tailParser;
    tailParser.feedInto(std::string_view(tail.constData(), static_cast<std::size_t>(tail.size())), batch);
  } else {
    const QByteArray all = file.readAll();
    read += all.size();
    parser.feedInto(std::string_view(all.constData(), static_cast<std::size_t>(all.size())), batch);
  }
  if (batch.hasHeader) s.totalSteps = batch.header.totalSteps;  // the newest header read
  if (batch.train.size() > 0) {
    s.step = std::max<qint64>(s.step, batch.train.step.back());
    s.lastLoss = batch.train.loss.back();
  }
  return read;
}

}  // namespace

RunSummary::Signature runSignature(const QString& runDir) {
  RunSummary::Signature sig;
  const QFileInfo runJson(QDir(runDir).filePath(run_file::kRunJson));
  const QFileInfo metrics(QDir(runDir).filePath(run_file::kMetrics));
  if (runJson.exists()) {
    sig.runJsonSize = runJson.size();
    sig.runJsonTime = runJson.lastModified();
  }
  if (metrics.exists()) {
    sig.metricsSize = metrics.size();
    sig.metricsTime = metrics.lastModified();
  }
  if (const QFileInfo remote(QDir(runDir).filePath(run_file::kRemoteRecord)); remote.exists())
    sig.remoteJsonSize = remote.size();
  return sig;
}

QString RunSummary::statusName() const {
  if (!status) return slurmJob.isEmpty() ? QStringLiteral("unknown") : QStringLiteral("queued");
  const QString name = QString::fromUtf8(toString(*status));
  const char* cause = endCauseWords(endCause);
  return *cause ? QStringLiteral("%1 (%2)").arg(name, QString::fromUtf8(cause)) : name;
}

RunSummary readRunSummary(const QString& runDir, const RunIndexEntry* indexed, qint64* metricsBytesRead) {
  RunSummary s;
  s.signature = runSignature(runDir);
  s.path = QFileInfo(runDir).absoluteFilePath();
  s.id = QFileInfo(runDir).fileName();
  QFile runJson(QDir(runDir).filePath(run_file::kRunJson));
  if (runJson.open(QIODevice::ReadOnly)) {
    const QByteArray bytes = runJson.read(1 << 20);
    const RunInfoReadResult read =
        parseRunInfo(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
    const RunInfo& info = read.info;
    if (!info.id.empty()) s.id = QString::fromStdString(info.id);
    s.name = QString::fromStdString(info.name);
    if (read.ok()) s.status = info.status;
    s.host = QString::fromStdString(info.host);
    s.created = QString::fromStdString(info.created);
    s.step = info.step;
    s.supervisorPid = info.supervisorPid;
    s.exitReason = QString::fromStdString(info.exitReason);
    s.failedRank = info.failedRank;
    s.endCause = info.endCause;
  }
  // A run with no run.json yet (a remote start still on its way): when it was made, from its id.
  if (s.created.isEmpty()) {
    const QDateTime made =
        QDateTime::fromString(QFileInfo(runDir).fileName().left(15), QStringLiteral("yyyyMMdd-HHmmss"));
    if (made.isValid()) s.created = made.toString(QStringLiteral("yyyy-MM-ddTHH:mm:ssZ"));
  }
  QFile remote(QDir(runDir).filePath(run_file::kRemoteRecord));  // app/remote's RemoteRecord
  if (remote.open(QIODevice::ReadOnly))
    if (const std::optional<RemoteRecord> record = decodeRemoteRecord(remote.read(1 << 20))) {
      s.remoteSpec = record->ssh.spec;
      s.slurmJob = record->slurmJobId;
    }
  const qint64 metricsTimeMs = s.signature.metricsTime.isValid() ? s.signature.metricsTime.toMSecsSinceEpoch() : 0;
  if (indexed != nullptr && indexed->describesMetrics(s.signature.metricsSize, metricsTimeMs)) {
    if (indexed->size >= 0) {  // a run with a metrics.jsonl (an index of none says nothing)
      s.step = std::max<qint64>(s.step, indexed->step);
      s.totalSteps = indexed->totalSteps;
      s.lastLoss = indexed->lastLoss();
    }
    return s;
  }
  const qint64 read = readMetricsEnds(QDir(runDir).filePath(run_file::kMetrics), s);
  if (metricsBytesRead != nullptr) *metricsBytesRead += read;
  return s;
}

}  // namespace traindeck
