// One run as the app watches it: followers for metrics.jsonl and the rank logs on a worker
// thread, and the metrics store they fill on the GUI thread. Pages read the store when
// metricsChanged() says it grew; log lines are passed on as they come.
#pragma once

#include <QObject>
#include <QThread>
#include <QVector>

#include "log_line.h"
#include "metrics_store.h"
#include "run_summary.h"

namespace traindeck {

class MetricsFollower;
class LogFollower;

class RunSession : public QObject {
  Q_OBJECT
 public:
  enum class Follow { MetricsAndLogs, MetricsOnly };  // the Compare page needs no logs

  explicit RunSession(const QString& runDir, QObject* parent = nullptr, Follow follow = Follow::MetricsAndLogs);
  ~RunSession() override;  // stops the followers and their thread

  QString runDir() const { return m_runDir; }
  const MetricsStore& store() const { return m_store; }
  // run.json and the ends of metrics.jsonl, read now.
  RunSummary summary() const { return readRunSummary(m_runDir); }

 signals:
  void metricsChanged();
  void logLinesAvailable(const QVector<traindeck::LogLine>& lines);

 private:
  QString m_runDir;
  MetricsStore m_store;
  QThread m_thread;
  MetricsFollower* m_metrics;     // lives in m_thread
  LogFollower* m_logs = nullptr;  // lives in m_thread; none with Follow::MetricsOnly
};

}  // namespace traindeck
