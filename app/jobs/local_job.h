// Runs `traindeck-train run` on this machine and controls it: stop() asks for a graceful stop
// (SIGTERM: every rank checkpoints, status "stopped"), kill() ends it at once (SIGKILL; the
// ranks die with the supervisor through PR_SET_PDEATHSIG; run.json then says "killed", as it
// does for any run found dead without a verdict, here or by attach()). The supervisor is started detached:
// it outlives the app, and attach() follows it again (or any run started earlier) by its pid.
// Lives in the GUI thread. The supervisor's own output goes to <run>/supervisor.log (its last
// kOutputLines lines: recentOutput()); each rank's output is in the run's logs/.
#pragma once

#include <QElapsedTimer>
#include <QString>
#include <QStringList>
#include <deque>
#include <memory>

#include "job.h"
#include "local_run_process.h"

class QTimer;

namespace traindeck {

class LocalJob : public Job {
  Q_OBJECT
 public:
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
  void stop() override;
  void kill() override;

  State state() const override { return m_state; }
  QString runDir() const override { return m_runDir; }
  QStringList recentOutput() override;
  bool isAttached() const { return m_attachedPid > 0; }
  qint64 supervisorPid() const;

 private:
  void setState(State state);
  void readOutput();
  void follow(int pid);
  void pollAttached();

  State m_state = State::Idle;
  QString m_runDir;
  QElapsedTimer m_started;  // since start(); invalid for attached runs
  int m_attachedPid = 0;
  std::unique_ptr<LocalSupervisorProcess> m_process;  // alive?, Stop, Kill, the end
  QTimer* m_attachTimer = nullptr;
  std::deque<QString> m_output;
};

}  // namespace traindeck
