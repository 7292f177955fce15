// One run as the app watches it: followers for metrics.jsonl (and, when asked, the rank logs)
// working in the RunRegistry's follower thread, and the stores they fill in the GUI thread.
// Sessions are made only by a RunRegistry and shared: every page that shows a run holds the same
// session, read-only (std::shared_ptr<const RunSession>). Pages read the stores when
// metricsChanged() or logsChanged() says they changed.
#pragma once

#include <QObject>
#include <QThread>
#include <QVector>

#include "log_line.h"
#include "log_store.h"
#include "metrics_store.h"
#include "run_summary.h"

namespace traindeck {

class MetricsFollower;
class LogFollower;

class RunSession : public QObject {
  Q_OBJECT
 public:
  // The followers are moved to `followerThread`, which must outlive them (the registry's does).
  RunSession(const QString& runDir, QThread* followerThread);
  ~RunSession() override;  // the followers are deleted in their thread

  QString runDir() const { return m_runDir; }
  const MetricsStore& metrics() const { return m_metrics; }
  const LogStore& logs() const { return m_logs; }
  bool followsLogs() const { return m_logFollower != nullptr; }
  // run.json and the ends of metrics.jsonl, read now.
  RunSummary summary() const { return readRunSummary(m_runDir); }

  // Starts following the rank logs too (the Compare page needs none; Logs does). Idempotent.
  void followLogs();

 signals:
  void metricsChanged();
  // Lines were appended to logs(), or, when `restarted`, a rank's log began again and views
  // rebuild from logs().
  void logsChanged(bool restarted);

 private:
  QString m_runDir;
  QThread* m_thread;
  MetricsStore m_metrics;
  LogStore m_logs;
  MetricsFollower* m_metricsFollower;    // lives in m_thread
  LogFollower* m_logFollower = nullptr;  // lives in m_thread, once followLogs() was called
};

}  // namespace traindeck
