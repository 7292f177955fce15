// The queue's word is kept as it last came; a change is said once (an output line and the state
// words), and a job no longer active makes the follower look again at once.
#include "slurm_job_process.h"

#include <QTimer>

#include "remote_helper.h"
#include "runlog/run_directory.h"

namespace traindeck {

SlurmJobProcess::SlurmJobProcess(RemoteHost* host, const RemoteRecord* record, const QString& localRunDir,
                                 SlurmQueue* queue, QObject* parent)
    : RunProcess(parent), m_host(host), m_record(record), m_localRunDir(localRunDir), m_queue(queue) {}

SlurmJobProcess::~SlurmJobProcess() {
  unfollow();
}

void SlurmJobProcess::follow() {
  if (m_following || !m_queue || !m_host) return;
  m_following = true;
  connect(m_queue, &SlurmQueue::updated, this, &SlurmJobProcess::onQueue);
  m_queue->follow(m_record->slurmJobId, m_host, m_record->helper);
}

void SlurmJobProcess::unfollow() {
  if (!m_following) return;
  m_following = false;
  if (m_queue) {
    disconnect(m_queue, nullptr, this, nullptr);
    m_queue->unfollow(m_record->slurmJobId);
  }
}

bool SlurmJobProcess::lives(bool) const {
  if (m_left) return false;
  if (m_record->slurmPacked && packedRunEnded()) return false;  // the job lives on with the others
  return !m_job || m_job->active();
}

bool SlurmJobProcess::packedRunEnded() const {
  const RunInfoReadResult read = readRunInfo(RunPaths{m_localRunDir.toStdString()});
  if (!read.ok()) return false;
  const RunStatus status = read.info.status;
  return status != RunStatus::Starting && status != RunStatus::Running &&
         status != RunStatus::Requeued;  // not asked yet: as if it lived
}

void SlurmJobProcess::runSaysEnded(qint64 endedForMs) {
  // A job that lives after its run said it ended is requeued or ending: for a while its queue is
  // asked sooner, so that its end is seen within about a second. (The run's follower counts the
  // time afresh for each end, a requeued run's next one included.)
  if (m_queue && endedForMs < kQueueSoonMs) m_queue->pollSoon();
}

void SlurmJobProcess::onQueue(const QMap<QString, SlurmJobState>& jobs) {
  if (!m_following) return;
  const QString& id = m_record->slurmJobId;
  const auto it = jobs.constFind(id);
  if (it == jobs.cend()) {
    m_left = true;
    return emit lookAgain();  // the end rule reads the run folder once more
  }
  const bool changed = !m_job || m_job->state != it->state || m_job->reason != it->reason ||
                       m_job->nodes != it->nodes || m_job->start != it->start;
  m_job = *it;
  if (m_job->neverRuns()) {
    const QString why = slurmReasonInWords(m_job->reason);
    if (m_host) RemoteHelper(m_host, m_record->helper, this).cancelJob(id, {}, [](const YesNoAnswer&) {});
    unfollow();
    return emit cannotRun(tr("Slurm job %1 can never run as asked (%2, %3): it was cancelled. Change the job's "
                             "target (partition, nodes, GPUs, time limit) and start it again.")
                              .arg(id, m_job->reason, why));
  }
  if (!changed) return;
  const RunInfoReadResult read = readRunInfo(RunPaths{m_localRunDir.toStdString()});
  const bool requeued = read.ok() && read.info.status == RunStatus::Requeued;
  const QString words = tr("Slurm job %1: %2").arg(id, m_job->describe(requeued));
  emit outputLine(words);
  emit stateWords(words);
  if (!m_job->active()) emit lookAgain();
}

QString SlurmJobProcess::lastState() const {
  return m_job ? m_job->state.toLower() : tr("gone from the queue");
}

PlaceDeath SlurmJobProcess::death() const {
  if (!m_job) return PlaceDeath::Unknown;
  if (m_job->state == QLatin1String("CANCELLED")) return PlaceDeath::Cancelled;
  if (m_job->state == QLatin1String("NODE_FAIL")) return PlaceDeath::NodeFailure;
  if (m_job->state == QLatin1String("TIMEOUT") || m_job->state == QLatin1String("DEADLINE"))
    return PlaceDeath::TimeLimit;
  return PlaceDeath::Unknown;
}

void SlurmJobProcess::stop() {
  if (!m_host) return;
  m_asked = RunAsked::Stop;
  const QString id = m_record->slurmJobId;
  RemoteHelper(m_host, m_record->helper, this).stopJob(id, m_record->remoteRunDir, [this, id](const SignalAnswer& a) {
    if (!a.ok()) {
      emit outputLine(tr("Could not ask Slurm job %1 to stop: %2").arg(id, a.why()));
      return emit stopNotDelivered();
    }
    if (a.waiting && m_record->slurmPacked) {
      // Its job waits on with the other runs it packs; this run will not start in it.
      emit outputLine(tr("Slurm job %1 was still waiting in the queue: this run will not start in it").arg(id));
      m_left = true;
      return emit lookAgain();
    }
    if (a.waiting)
      return emit outputLine(
          tr("Slurm job %1 was still waiting in the queue: cancelled (it had nothing to checkpoint)").arg(id));
    emit outputLine(tr("Slurm job %1 asked to checkpoint and stop").arg(id));
    QTimer::singleShot(kStopGraceMs, this, [this, id] {
      if (!m_following || !lives(true)) return;
      emit outputLine(tr("Slurm job %1 did not stop within %2 s: cancelling it").arg(id).arg(kStopGraceMs / 1000));
      cancel(m_record->slurmPacked ? m_record->remoteRunDir : QString());  // packed: this run alone
    });
  });
}

void SlurmJobProcess::kill() {
  m_asked = RunAsked::Kill;
  cancel(m_record->remoteRunDir);
}

void SlurmJobProcess::cancel(const QString& runDir) {
  if (!m_host) return;
  const QString id = m_record->slurmJobId;
  RemoteHelper(m_host, m_record->helper, this).cancelJob(id, runDir, [this, id](const YesNoAnswer& a) {
    if (!a.ok()) return emit outputLine(tr("Could not cancel Slurm job %1: %2").arg(id, a.why()));
    // A packed run that had not started never will (its job waits on with the others).
    if (m_record->slurmPacked && !readRunInfo(RunPaths{m_localRunDir.toStdString()}).ok()) {
      m_left = true;
      emit lookAgain();
    }
  });
}

QString SlurmJobProcess::verdictReason(const RunEnd& end) const {
  const QString& id = m_record->slurmJobId;
  const QString resume = tr("Continue… resumes from the newest checkpoint here");
  switch (end.cause) {
    case EndCause::Asked:
      return tr("killed from TrainDeck: Slurm job %1 was cancelled; %2").arg(id, resume);
    case EndCause::Cancelled:
      return tr("cancelled through Slurm: job %1 was cancelled by someone else (scancel, or an administrator); %2")
          .arg(id, resume);
    case EndCause::NodeFailure:
      return tr("killed: a node of Slurm job %1 failed; %2").arg(id, resume);
    case EndCause::TimeLimit:
      return tr("killed: Slurm job %1 reached its time limit before every rank could checkpoint; %2").arg(id, resume);
    default:
      return tr("killed: Slurm job %1 ended (%2) without its trainer saying how (cancelled, a node failure, out of "
                "memory); %3")
          .arg(id, lastState(), resume);
  }
}

QString SlurmJobProcess::neverStartedReason(const QString&) const {
  return tr("Slurm job %1 ended before its trainer wrote the run (%2): slurm-%1.out in the run folder on %3 says why")
      .arg(m_record->slurmJobId, lastState(), m_record->ssh.spec);
}

}  // namespace traindeck
