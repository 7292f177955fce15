// A supervisor on a host and a watched folder; the choice of kind for a remote run.
#include "remote_run_process.h"

#include "remote_helper.h"
#include "slurm_job_process.h"

namespace traindeck {

std::unique_ptr<RunProcess> remoteRunProcess(RemoteHost* host, const RemoteRecord* record, const QString& localRunDir,
                                             SlurmQueues* queues) {
  if (record->watchOnly) return std::make_unique<WatchedProcess>(record);
  if (!record->slurmJobId.isEmpty())
    return std::make_unique<SlurmJobProcess>(host, record, localRunDir,
                                             queues ? queues->forLogin(record->ssh.spec) : nullptr);
  return std::make_unique<RemoteSupervisorProcess>(host, record);
}

RemoteSupervisorProcess::RemoteSupervisorProcess(RemoteHost* host, const RemoteRecord* record, QObject* parent)
    : RunProcess(parent), m_host(host), m_record(record) {}

void RemoteSupervisorProcess::stop() {
  m_asked = RunAsked::Stop;
  signalSupervisor(QStringLiteral("TERM"));
}

void RemoteSupervisorProcess::kill() {
  m_asked = RunAsked::Kill;
  signalSupervisor(QStringLiteral("KILL"));
}

void RemoteSupervisorProcess::signalSupervisor(const QString& signal) {
  if (!m_host) return;
  const QString spec = m_record->ssh.spec, workDir = m_record->workDir;
  RemoteHelper(m_host, m_record->helper, this)
      .signal(signal, m_record->pid, m_record->startTime, [this, signal, spec, workDir](const SignalAnswer& a) {
        if (!a.ok()) {
          const QString why = !a.linkFailure.isEmpty() ? a.linkFailure
                              : a.helperMissing        ? tr("the work folder %1 is not there any more").arg(workDir)
                                                       : a.why();
          emit outputLine(
              tr("Could not send %1 to the run on %2: %3; try again once the link is back.").arg(signal, spec, why));
          emit stopNotDelivered();
        } else if (a.ended)
          emit outputLine(tr("The run's supervisor on %1 had ended already.").arg(spec));
      });
}

QString RemoteSupervisorProcess::verdictReason(const RunEnd& end) const {
  if (end.cause == EndCause::Asked)
    return tr("killed from TrainDeck: its supervisor on %1 was killed (no checkpoint); Continue… resumes from the "
              "newest checkpoint here")
        .arg(m_record->ssh.spec);
  return tr("killed: its supervisor on %1 ended without saying how (a Kill, a kill there, or out of memory); "
            "Continue… resumes from the newest checkpoint here")
      .arg(m_record->ssh.spec);
}

QString RemoteSupervisorProcess::neverStartedReason(const QString& supervisorSaid) const {
  return tr("The trainer on %1 ended without starting the run: %2").arg(m_record->ssh.spec, supervisorSaid);
}

WatchedProcess::WatchedProcess(const RemoteRecord* record, QObject* parent) : RunProcess(parent), m_record(record) {}

QString WatchedProcess::stopRefusal() const {
  return tr("a run started on %1 outside TrainDeck (watched): stop it there").arg(m_record->ssh.spec);
}

void WatchedProcess::stop() {
  emit outputLine(tr("This run was started on %1 outside TrainDeck: stop it there.").arg(m_record->ssh.spec));
}

void WatchedProcess::kill() {
  stop();
}

}  // namespace traindeck
