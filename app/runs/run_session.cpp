#include "run_session.h"

#include <QMetaObject>

#include "app_metatypes.h"
#include "import_follower.h"
#include "imported_runs.h"
#include "log_follower.h"
#include "metrics_follower.h"

namespace traindeck {

RunSession::RunSession(const QString& runDir, QThread* followerThread, std::optional<RunSource> imported,
                       const MetricsCache& metricsCache)
    : m_runDir(runDir), m_thread(followerThread) {
  registerAppMetaTypes();
  if (imported) {
    m_badge = traindeck::sourceBadge(imported->kind);
    m_listName = QString::fromStdString(imported->name);
    m_importedSummary.id = m_listName;
    m_importedSummary.path = m_runDir;
    m_importFollower = new ImportFollower(std::move(*imported));
    m_importFollower->moveToThread(m_thread);
    connect(m_importFollower, &ImportFollower::runRead, this, &RunSession::takeImport);
    QMetaObject::invokeMethod(m_importFollower, &ImportFollower::start, Qt::QueuedConnection);
    return;
  }
  m_metricsFollower = new MetricsFollower(runDir, metricsCache);
  m_metricsFollower->moveToThread(m_thread);
  connect(m_metricsFollower, &MetricsFollower::metricsAvailable, this,
          [this](const SharedMetricsBatch& batch, bool handedOver) {
            // A batch handed over is this session's (made mutable; the follower never reads it
            // again): its columns are taken, not copied (a long history's are a million records).
            if (handedOver)
              m_metrics.append(std::move(const_cast<MetricsBatch&>(*batch)));
            else
              m_metrics.append(*batch);
            emit metricsChanged();
          });
  QMetaObject::invokeMethod(m_metricsFollower, &MetricsFollower::start, Qt::QueuedConnection);
}

void RunSession::takeImport(const ImportedRead& read) {
  m_importError = read.error;
  if (read.run) {
    ImportedRun& run = *read.run;  // this session's alone: the follower made it for this signal
    m_importedSummary = importedRunSummary(run, m_runDir, m_listName);
    m_importedConfig = importedRunConfig(run);
    m_metrics.clear();
    m_metrics.append(run.metrics);
    m_metrics.setScalars(std::move(run.scalars));
  }
  emit metricsChanged();
}

RunSummary RunSession::summary() const {
  return isImported() ? m_importedSummary : readRunSummary(m_runDir);
}

void RunSession::followLogs() {
  if (m_logFollower || isImported()) return;
  m_logFollower = new LogFollower(m_runDir);
  m_logFollower->moveToThread(m_thread);
  // Both signals come through one queue, so a restart is handled before the lines that follow it.
  connect(m_logFollower, &LogFollower::logRestarted, this, [this](int rank) {
    m_logs.restartRank(rank);
    emit logsChanged(true);
  });
  connect(m_logFollower, &LogFollower::linesAvailable, this, [this](const QVector<LogLine>& lines) {
    m_logs.append(lines);
    emit logsChanged(false);
  });
  QMetaObject::invokeMethod(m_logFollower, &LogFollower::start, Qt::QueuedConnection);
}

RunSession::~RunSession() {
  // Queued, so each is deleted in the follower thread after whatever it is doing; what it already
  // sent to this session is dropped with the session's connections.
  for (QObject* follower : {static_cast<QObject*>(m_metricsFollower), static_cast<QObject*>(m_logFollower),
                            static_cast<QObject*>(m_importFollower)})
    if (follower) QMetaObject::invokeMethod(follower, &QObject::deleteLater, Qt::QueuedConnection);
}

}  // namespace traindeck
