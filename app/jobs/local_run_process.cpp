#include "local_run_process.h"

#include <signal.h>

#include "trainer_process.h"

namespace traindeck {

LocalSupervisorProcess::LocalSupervisorProcess(int pid, QElapsedTimer started, QObject* parent)
    : RunProcess(parent), m_pid(pid), m_started(started) {}

bool LocalSupervisorProcess::lives(bool) const {
  const bool young = m_started.isValid() && m_started.elapsed() < kYoungMs;
  return isTrainerProcess(m_pid) || (young && ::kill(m_pid, 0) == 0);
}

void LocalSupervisorProcess::stop() {
  m_asked = RunAsked::Stop;
  if (!signalTrainerProcess(m_pid, SIGTERM)) emit stopNotDelivered();
}

void LocalSupervisorProcess::kill() {
  if (signalTrainerProcess(m_pid, SIGKILL)) m_asked = RunAsked::Kill;
}

QString LocalSupervisorProcess::verdictReason(const RunEnd& end) const {
  if (end.cause == EndCause::Asked)
    return tr("killed from TrainDeck (no checkpoint; --resume continues from the last one)");
  return tr("killed: its supervisor (pid %1) ended without saying how (a kill from outside, or out of memory); "
            "--resume continues from the last checkpoint")
      .arg(m_pid);
}

QString LocalSupervisorProcess::neverStartedReason(const QString& supervisorSaid) const {
  return tr("traindeck-train ended before it started the run: %1").arg(supervisorSaid);
}

}  // namespace traindeck
