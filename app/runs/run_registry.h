// Hands out one RunSession per run directory, shared by every page that shows the run, and
// runs every session's followers in one thread of its own (20 compared runs and the shown one
// are one thread, not 21). A session lives while a page holds it: the registry keeps only weak
// references. Lives in the GUI thread; it must outlive the sessions it made.
#pragma once

#include <QObject>
#include <QString>
#include <QThread>
#include <map>
#include <memory>

#include "metrics_cache.h"
#include "run_session.h"

namespace traindeck {

class RunRegistry : public QObject {
  Q_OBJECT
 public:
  enum class Follow { MetricsOnly, MetricsAndLogs };

  // With `metricsCache` enabled, long runs' metrics are kept there for the next opening
  // (metrics_cache.h), and its files of runs that are gone are removed once, in the follower thread.
  explicit RunRegistry(QObject* parent = nullptr, MetricsCache metricsCache = {});
  ~RunRegistry() override;  // ends the follower thread

  // The run's session, made when no page holds one; with MetricsAndLogs its logs are followed
  // too from now on (a session first made for Compare gains them when Logs asks). `runDir` may
  // be the address of another tool's run (imported_runs.h): its session reads that run.
  std::shared_ptr<const RunSession> session(const QString& runDir, Follow follow = Follow::MetricsAndLogs);
  // Sessions some page still holds.
  int liveSessions() const;
  const QThread& followerThread() const { return m_thread; }

 private:
  QThread m_thread;
  MetricsCache m_metricsCache;
  std::map<QString, std::weak_ptr<RunSession>> m_sessions;  // by absolute run directory
};

}  // namespace traindeck
