#include "run_registry.h"

#include <QFileInfo>

#include "imported_runs.h"

namespace traindeck {

RunRegistry::RunRegistry(QObject* parent, MetricsCache metricsCache)
    : QObject(parent), m_metricsCache(std::move(metricsCache)) {
  m_thread.setObjectName("run-followers");
  m_thread.start();
  if (m_metricsCache.enabled()) {
    auto* sweeper = new QObject;
    sweeper->moveToThread(&m_thread);
    QMetaObject::invokeMethod(
        sweeper,
        [sweeper, cache = m_metricsCache] {
          cache.removeGone();
          sweeper->deleteLater();
        },
        Qt::QueuedConnection);
  }
}

RunRegistry::~RunRegistry() {
  // Followers of sessions that are gone were queued for deletion; they are deleted as the
  // thread's loop ends.
  m_thread.quit();
  m_thread.wait();
}

std::shared_ptr<const RunSession> RunRegistry::session(const QString& runDir, Follow follow) {
  const QString key = QFileInfo(runDir).absoluteFilePath();
  std::erase_if(m_sessions, [](const auto& entry) { return entry.second.expired(); });
  std::shared_ptr<RunSession> shared = m_sessions[key].lock();
  if (!shared) {
    // A run of TrainDeck's (or one being started: no other tool's run in its folder) or of another tool.
    std::optional<RunSource> imported;
    if (!isTrainDeckRunFolder(key)) imported = importedRunSource(key);
    shared = std::make_shared<RunSession>(key, &m_thread, std::move(imported), m_metricsCache);
    m_sessions[key] = shared;
  }
  if (follow == Follow::MetricsAndLogs) shared->followLogs();
  return shared;
}

int RunRegistry::liveSessions() const {
  int live = 0;
  for (const auto& [dir, session] : m_sessions) live += session.expired() ? 0 : 1;
  return live;
}

}  // namespace traindeck
