#include "checkpoint_sync.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <algorithm>

#include "remote_fetch.h"
#include "runlog/run_paths.h"

namespace traindeck {

CheckpointSync::CheckpointSync(const QString& runDir, const RemoteRecord& record, RemoteHost* host, int keep,
                               QObject* parent)
    : QObject(parent), m_runDir(runDir), m_record(record), m_host(host), m_keep(std::max(1, keep)) {
  m_timer.setInterval(kIntervalMs);
  connect(&m_timer, &QTimer::timeout, this, &CheckpointSync::syncNow);
}

CheckpointSync::~CheckpointSync() {
  delete m_fetch;
}

void CheckpointSync::start() {
  m_timer.start();
  syncNow();
}

void CheckpointSync::syncNow() {
  if (m_fetch != nullptr || m_host == nullptr) return;
  const QString before = newestCheckpoint(m_runDir);
  m_fetch = new RemoteFetch(m_runDir, m_record, FetchKind::Checkpoint, m_host);
  m_bytes = 0;
  m_copyClock.start();
  connect(m_fetch, &RemoteFetch::progress, this, [this](const QString&, qint64 done, qint64) { m_bytes = done; });
  connect(m_fetch, &RemoteFetch::finished, this, [this, before](const QString& localDir, const QString& error) {
    // No checkpoint there yet is not a failure: the run has not saved one.
    // Nor is another process of the app copying it (the app and `traindeck --stop` on one run).
    const bool noneThere = m_fetch->foundNoCheckpoint() || m_fetch->copyingElsewhere();
    m_fetch->deleteLater();
    m_fetch = nullptr;
    if (!error.isEmpty() && !noneThere) emit syncFailed(error);
    const QString name = QFileInfo(localDir).fileName();
    pruneCheckpoints(m_runDir, m_keep);
    const bool copied = error.isEmpty() && !localDir.isEmpty() && name != before && m_bytes > 0;
    if (copied) emit synced(name, m_bytes, m_copyClock.elapsed() / 1000.0);
    emit idle();
    // A host that saved again while this one came home: its newest is asked for at once, not
    // one interval later (a listing when there is nothing newer).
    if (copied && m_fetch == nullptr) QTimer::singleShot(0, this, &CheckpointSync::syncNow);
  });
  m_fetch->start();
}

QString CheckpointSync::newestCheckpoint(const QString& runDir) {
  const QStringList names = completeCheckpoints(runDir);
  return names.isEmpty() ? QString() : names.back();
}

QStringList CheckpointSync::completeCheckpoints(const QString& runDir) {
  QStringList complete;  // by step, as the trainer and the helper order them (runlog/checkpoint_names.h)
  for (const std::string& name : traindeck::completeCheckpoints(RunPaths{runDir.toStdString()}.checkpoints()))
    complete << QString::fromStdString(name);
  return complete;
}

QStringList CheckpointSync::pruneCheckpoints(const QString& runDir, int keep) {
  const QStringList complete = completeCheckpoints(runDir);
  QStringList removed;
  for (qsizetype i = 0; i + keep < complete.size(); ++i) {
    QDir old(QDir(runDir).filePath(QString(run_file::kCheckpoints) + '/' + complete[i]));
    if (old.removeRecursively()) removed << complete[i];
  }
  // Copies cut short: only the newest can still be resumed (the host offers that one or a newer
  // one from now on), and none at or below a complete one here is needed.
  static const QRegularExpression partial(QStringLiteral("^step-([0-9]+)\\.partial$"));
  const QDir dir(QDir(runDir).filePath(run_file::kCheckpoints));
  QList<QPair<qint64, QString>> partials;
  for (const QString& entry : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot))
    if (const QRegularExpressionMatch m = partial.match(entry); m.hasMatch())
      partials.push_back({m.captured(1).toLongLong(), entry});
  std::sort(partials.begin(), partials.end());
  const qint64 newestComplete = complete.isEmpty() ? -1 : stepOf(complete.back());
  for (qsizetype i = 0; i < partials.size(); ++i)
    if ((i + 1 < partials.size() || partials[i].first <= newestComplete) &&
        QDir(dir.filePath(partials[i].second)).removeRecursively())
      removed << partials[i].second;
  return removed;
}

}  // namespace traindeck
