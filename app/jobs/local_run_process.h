// The run process of a run on this machine (run_process.h): its supervisor, by pid. Alive while
// the pid is a traindeck-train (or, in its first seconds, any process: it may not have exec'd
// yet); Stop is SIGTERM (every rank checkpoints), Kill SIGKILL (the ranks die with it through
// PR_SET_PDEATHSIG). GUI thread.
#pragma once

#include <QElapsedTimer>

#include "run_process.h"

namespace traindeck {

class LocalSupervisorProcess : public RunProcess {
  Q_OBJECT
 public:
  static constexpr int kYoungMs = 3000;

  // `started`: since the app started it (invalid for a run attached).
  LocalSupervisorProcess(int pid, QElapsedTimer started, QObject* parent = nullptr);
  int pid() const { return m_pid; }

  bool lives(bool = false) const override;
  void stop() override;
  void kill() override;
  QString verdictReason(const RunEnd& end) const override;
  QString neverStartedReason(const QString& supervisorSaid) const override;

 private:
  int m_pid;
  QElapsedTimer m_started;
};

}  // namespace traindeck
