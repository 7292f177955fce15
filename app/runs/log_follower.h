// Follows every logs/rank-<r>.log of a run, including ranks whose log appears later, and the
// scheduler's output in the run folder (slurm-<id>.out, as kJobOutputRank), and emits complete
// lines in batches. A job on several hosts has its other nodes' rank logs in
// nodes/node-<n>/logs/ (their mirrors): those are followed too. Threading as MetricsFollower: its owner may move it to
// a worker thread and invoke start() there; it works as well in the GUI thread (logs are small).
#pragma once

#include <QObject>
#include <QString>
#include <QVector>
#include <map>
#include <memory>
#include <string>

#include "app_metatypes.h"  // before moc's code for the signals below uses the type
#include "log_line.h"

class QFileSystemWatcher;
class QTimer;

#include "runlog/line_splitter.h"

namespace traindeck {

class FileTail;

class LogFollower : public QObject {
  Q_OBJECT
 public:
  static constexpr int kPollMs = 200;
  static constexpr std::size_t kMaxBytesPerPoll = 4u << 20;  // per rank
  static constexpr std::size_t kMaxLineBytes = 64u << 10;    // longer lines are cut

  explicit LogFollower(const QString& runDir, QObject* parent = nullptr);
  ~LogFollower() override;

 public slots:
  void start();
  void stop();
  void poll();  // public for tests

 signals:
  void linesAvailable(const QVector<traindeck::LogLine>& lines);
  // A rank's log was truncated or replaced; its lines come again from the start.
  void logRestarted(int rank);

 private:
  struct RankLog {
    std::unique_ptr<FileTail> tail;
    LineSplitter lines{kMaxLineBytes};
  };
  void discoverRanks();

  QString m_runDir, m_logsDir;
  std::map<int, RankLog> m_ranks;
  std::map<QString, int> m_jobOutputs;  // slurm-<id>.out -> its "rank" (kJobOutputRank + n)
  QFileSystemWatcher* m_watcher = nullptr;
  QTimer* m_timer = nullptr;
};

}  // namespace traindeck
