#include "run_session.h"

#include <QMetaObject>

#include "app_metatypes.h"
#include "log_follower.h"
#include "metrics_follower.h"

namespace traindeck {

RunSession::RunSession(const QString& runDir, QThread* followerThread)
    : m_runDir(runDir), m_thread(followerThread), m_metricsFollower(new MetricsFollower(runDir)) {
  registerAppMetaTypes();
  m_metricsFollower->moveToThread(m_thread);
  connect(m_metricsFollower, &MetricsFollower::metricsAvailable, this, [this](const MetricsBatch& batch) {
    m_metrics.append(batch);
    emit metricsChanged();
  });
  QMetaObject::invokeMethod(m_metricsFollower, &MetricsFollower::start, Qt::QueuedConnection);
}

void RunSession::followLogs() {
  if (m_logFollower) return;
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
  // Queued, so each is deleted in the follower thread after whatever it is doing; batches it
  // already sent to this session are dropped with the session's connections.
  QMetaObject::invokeMethod(m_metricsFollower, &QObject::deleteLater, Qt::QueuedConnection);
  if (m_logFollower) QMetaObject::invokeMethod(m_logFollower, &QObject::deleteLater, Qt::QueuedConnection);
}

}  // namespace traindeck
