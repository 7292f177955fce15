#include "run_session.h"

#include <QMetaObject>

#include "app_metatypes.h"
#include "log_follower.h"
#include "metrics_follower.h"

namespace traindeck {

RunSession::RunSession(const QString& runDir, QObject* parent, Follow follow)
    : QObject(parent), m_runDir(runDir), m_metrics(new MetricsFollower(runDir)) {
  registerAppMetaTypes();
  m_thread.setObjectName("run-followers");
  m_metrics->moveToThread(&m_thread);
  connect(m_metrics, &MetricsFollower::metricsAvailable, this, [this](const MetricsBatch& batch) {
    m_store.append(batch);
    emit metricsChanged();
  });
  if (follow == Follow::MetricsAndLogs) {
    m_logs = new LogFollower(runDir);
    m_logs->moveToThread(&m_thread);
    connect(m_logs, &LogFollower::linesAvailable, this, &RunSession::logLinesAvailable);
  }
  m_thread.start();
  QMetaObject::invokeMethod(m_metrics, &MetricsFollower::start, Qt::QueuedConnection);
  if (m_logs) QMetaObject::invokeMethod(m_logs, &LogFollower::start, Qt::QueuedConnection);
}

RunSession::~RunSession() {
  // The followers are deleted in their own thread, then the thread ends.
  QMetaObject::invokeMethod(m_metrics, &QObject::deleteLater, Qt::QueuedConnection);
  if (m_logs) QMetaObject::invokeMethod(m_logs, &QObject::deleteLater, Qt::QueuedConnection);
  m_thread.quit();
  m_thread.wait();
}

}  // namespace traindeck
