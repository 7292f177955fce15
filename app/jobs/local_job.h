// Runs `traindeck-train run` on this machine and controls it: stop() asks for a graceful stop
// (SIGTERM: every rank checkpoints, status "stopped"), kill() ends it at once (SIGKILL; the
// ranks die with the supervisor through PR_SET_PDEATHSIG). The supervisor is started detached:
// it outlives the app, and attach() follows it again (or any run started earlier) by its pid.
// Lives in the GUI thread. The supervisor's own output goes to <run>/supervisor.log (its last
// kOutputLines lines: recentOutput()); each rank's output is in the run's logs/.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QStringList>
#include <deque>

class QTimer;

namespace traindeck {

class LocalJob : public QObject {
  Q_OBJECT
 public:
  enum class State { Idle, Starting, Running, Stopping, Finished };
  Q_ENUM(State)
  static constexpr int kOutputLines = 200;
  static constexpr int kAttachPollMs = 500;

  explicit LocalJob(QObject* parent = nullptr);
  ~LocalJob() override;

  // Runs `TRAIN run --config CONFIG --run-dir RUNDIR --no-progress EXTRA...`. A job runs once.
  void start(const QString& trainBinary, const QString& configPath, const QString& runDir,
             const QStringList& extraArgs = {});
  // Follows a run whose run.json says starting/running and whose supervisor_pid is a live
  // traindeck-train. Returns an empty string, or why it cannot.
  QString attach(const QString& runDir);
  void stop();
  void kill();

  State state() const { return m_state; }
  bool isAttached() const { return m_attachedPid > 0; }
  qint64 supervisorPid() const;
  QString runDir() const { return m_runDir; }
  QStringList recentOutput();

 signals:
  void stateChanged(traindeck::LocalJob::State state);
  // 0 when run.json says finished or stopped, 1 failed, -1 when it says neither (killed).
  void finished(int exitCode);
  void failedToStart(const QString& reason);

 private:
  void setState(State state);
  void readOutput();
  void watchPid();
  void pollAttached();

  State m_state = State::Idle;
  QString m_runDir;
  QElapsedTimer m_started;  // since start(); invalid for attached runs
  int m_attachedPid = 0;
  QTimer* m_attachTimer = nullptr;
  std::deque<QString> m_output;
};

}  // namespace traindeck
