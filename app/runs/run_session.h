// One run as the app watches it: followers for metrics.jsonl (and, when asked, the rank logs)
// working in the RunRegistry's follower thread, and the stores they fill in the GUI thread.
// Another tool's run (by its address, imported_runs.h) is one too: an ImportFollower reads it in
// that thread, whole, each time its files change, and its store is replaced by what was read (a
// read that fails keeps what the last one gave). It has no logs.
// Sessions are made only by a RunRegistry and shared: every page that shows a run holds the same
// session, read-only (std::shared_ptr<const RunSession>). Pages read the stores when
// metricsChanged() or logsChanged() says they changed.
#pragma once

#include <QObject>
#include <QThread>
#include <QVector>
#include <optional>

#include "config/config_flatten.h"
#include "imports/run_discovery.h"
#include "log_line.h"
#include "log_store.h"
#include "metrics_cache.h"
#include "metrics_store.h"
#include "run_summary.h"

namespace traindeck {

class MetricsFollower;
class LogFollower;
class ImportFollower;
struct ImportedRead;

class RunSession : public QObject {
  Q_OBJECT
 public:
  // The followers are moved to `followerThread`, which must outlive them (the registry's does).
  // With `imported`, the run at `runDir` (its address) is that run of another tool; else its
  // metrics follower uses `metricsCache`.
  RunSession(const QString& runDir, QThread* followerThread, std::optional<RunSource> imported = std::nullopt,
             const MetricsCache& metricsCache = {});
  ~RunSession() override;  // the followers are deleted in their thread

  QString runDir() const { return m_runDir; }
  const MetricsStore& metrics() const { return m_metrics; }
  const LogStore& logs() const { return m_logs; }
  bool followsLogs() const { return m_logFollower != nullptr; }
  // run.json and the ends of metrics.jsonl, read now; another tool's run: from its last read.
  RunSummary summary() const;

  // Another tool's run: its badge ("TensorBoard"), the config its format carries, and why its
  // last read failed (empty when it did not). Empty for TrainDeck's runs.
  bool isImported() const { return m_importFollower != nullptr; }
  QString sourceBadge() const { return m_badge; }
  const FlatConfig& importedConfig() const { return m_importedConfig; }
  QString importError() const { return m_importError; }

  // Starts following the rank logs too (the Compare page needs none; Logs does). Idempotent;
  // nothing for another tool's run.
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
  MetricsFollower* m_metricsFollower = nullptr;  // lives in m_thread; TrainDeck's runs
  LogFollower* m_logFollower = nullptr;          // lives in m_thread, once followLogs() was called
  ImportFollower* m_importFollower = nullptr;    // lives in m_thread; other tools' runs
  void takeImport(const ImportedRead& read);
  QString m_badge;
  QString m_listName;  // the source's name, the summary's id
  RunSummary m_importedSummary;
  FlatConfig m_importedConfig;
  QString m_importError;
};

}  // namespace traindeck
