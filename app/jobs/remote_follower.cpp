// One read in flight at a time, and none while the stream runs; an answer cut by the link is
// dropped and the next read (or stream) asks again from the same offsets, the mirror's sizes. The
// end waits for the last checkpoint copy and anything held (holdEnd).
#include "remote_follower.h"

#include "remote_helper.h"
#include "runlog/run_directory.h"
#include "runlog/run_verdict.h"
#include "supervisor_log.h"

namespace traindeck {

RemoteFollower::RemoteFollower(RemoteHost* host, RemoteRecord* record, RunMirror* mirror, Options options,
                               QObject* parent)
    : QObject(parent), m_host(host), m_record(record), m_mirror(mirror), m_spec(record->ssh.spec), m_options(options) {
  m_pollTimer.setInterval(kPollMs);
  connect(&m_pollTimer, &QTimer::timeout, this, &RemoteFollower::pollNow);
  m_goneTimer.setSingleShot(true);
  connect(&m_goneTimer, &QTimer::timeout, this, [this] {
    if (!m_following) return;
    const int seconds = m_options.goneAfterMs / 1000;
    emit gone(seconds >= 120 ? tr("%1 has been unreachable for %2 minutes").arg(m_spec).arg(seconds / 60)
                             : tr("%1 has been unreachable for %2 s").arg(m_spec).arg(seconds));
  });
  connect(m_host, &RemoteHost::stateChanged, this, &RemoteFollower::onLinkState);
  connect(m_host, &RemoteHost::reconnectTried, this, [this](int attempt) {
    if (!m_following || m_host->state() != LinkState::Reconnecting) return;
    emit linkChanged(
        Job::Link::Reconnecting,
        tr("link lost at %1, reconnecting (try %2)").arg(m_unreachableSince.toString("HH:mm:ss")).arg(attempt));
  });
  connect(m_host, &RemoteHost::connectionFailed, this, [this](const QString& message) {
    if (!m_following) return;
    // After a reconnect gave up, or attached while the host is away: it may come back, and a link
    // never ends the run (only the gone timer does); try again now and then.
    if (!m_unreachableSince.isValid()) m_unreachableSince = QDateTime::currentDateTime();
    emit linkChanged(Job::Link::Unreachable,
                     tr("host unreachable since %1: %2").arg(m_unreachableSince.toString("HH:mm"), message));
    QTimer::singleShot(kRetryConnectMs, this, [this] {
      if (m_following && !m_host->isReady()) m_host->connectToHost();
    });
  });
}

RemoteFollower::~RemoteFollower() {
  if (m_following && isSlurm()) m_options.queue->unfollow(m_record->slurmJobId);
}

void RemoteFollower::start() {
  m_following = true;
  const bool ready = m_host->isReady();
  emit linkChanged(ready ? Job::Link::Following : Job::Link::Connecting, ready ? tr("following") : tr("connecting"));
  if (!ready && m_options.goneAfterMs > 0) m_goneTimer.start(m_options.goneAfterMs);
  m_pollTimer.start();
  startStream();
  pollNow();  // where no stream runs
  if (!m_record->watchOnly && m_options.keepHere > 0) startSync();
  if (isSlurm()) {
    connect(m_options.queue, &SlurmQueue::updated, this, &RemoteFollower::onQueue);
    m_options.queue->follow(m_record->slurmJobId, m_host, m_record->helper);
  }
}

void RemoteFollower::onQueue(const QMap<QString, SlurmJobState>& jobs) {
  if (!m_following) return;
  const auto it = jobs.constFind(m_record->slurmJobId);
  if (it == jobs.cend()) {
    m_jobLeftQueue = true;
    return pollNow();  // the end rules read the run folder once more
  }
  const bool changed = !m_job || m_job->state != it->state || m_job->reason != it->reason || m_job->nodes != it->nodes;
  m_job = *it;
  if (m_job->neverRuns()) {
    const QString why = slurmReasonInWords(m_job->reason);
    RemoteHelper(m_host, m_record->helper, this).cancelJob(m_record->slurmJobId, [](const YesNoAnswer&) {});
    stopFollowing();
    return emit failed(tr("Slurm job %1 can never run as asked (%2, %3): it was cancelled. Change the job's target "
                          "(partition, nodes, GPUs, time limit) and start it again.")
                           .arg(m_record->slurmJobId, m_job->reason, why));
  }
  if (!changed) return;
  const RunInfoReadResult read = readRunInfo(RunPaths{runDir().toStdString()});
  const bool requeued = read.ok() && read.info.status == RunStatus::Requeued;
  const QString words = tr("Slurm job %1: %2").arg(m_record->slurmJobId, m_job->describe(requeued));
  emit outputLine(words);
  if (m_host->isReady()) emit linkChanged(Job::Link::Following, m_job->describe(requeued));
  if (!m_job->active()) pollNow();
}

QString RemoteFollower::lastJobState() const {
  return m_job ? m_job->state.toLower() : tr("gone from the queue");
}

bool RemoteFollower::runLives(const RemoteReadAnswer& answer) const {
  if (m_record->watchOnly) return false;
  if (!isSlurm()) return answer.supervisorAlive;
  if (m_jobLeftQueue) return false;
  return !m_job || m_job->active();  // not asked yet: as if it lived
}

void RemoteFollower::holdEnd(const QString& what) {
  m_heldBy = what;
  if (what.isEmpty() && m_following) pollNow();
}

void RemoteFollower::onLinkState(LinkState state) {
  if (state != LinkState::Ready && !m_unreachableSince.isValid()) m_unreachableSince = QDateTime::currentDateTime();
  if (state == LinkState::Ready) m_unreachableSince = {};
  if (!m_following) return;
  if (state == LinkState::Ready)
    m_goneTimer.stop();
  else if (m_options.goneAfterMs > 0 && !m_goneTimer.isActive())
    m_goneTimer.start(m_options.goneAfterMs);
  if (state == LinkState::Ready) {
    emit linkChanged(Job::Link::Following, tr("following"));
    startStream();
  }
  else if (state == LinkState::Reconnecting)
    emit linkChanged(Job::Link::Reconnecting,
                     tr("link lost at %1, reconnecting").arg(m_unreachableSince.toString("HH:mm:ss")));
}

void RemoteFollower::startSync() {
  m_sync = std::make_unique<CheckpointSync>(runDir(), *m_record, m_host, m_options.keepHere);
  connect(m_sync.get(), &CheckpointSync::synced, this, [this](const QString& name, qint64 bytes, double seconds) {
    const double mb = static_cast<double>(bytes) / 1e6;
    emit outputLine(tr("Checkpoint %1 is here: %2 MB in %3 s (%4 MB/s); the newest %5 kept")
                        .arg(name)
                        .arg(mb, 0, 'f', 1)
                        .arg(seconds, 0, 'f', 1)
                        .arg(seconds > 0 ? mb / seconds : 0, 0, 'f', 1)
                        .arg(m_options.keepHere));
  });
  connect(m_sync.get(), &CheckpointSync::syncFailed, this, [this](const QString& why) {
    emit outputLine(tr("Copying the newest checkpoint here failed (tried again in %1 s): %2")
                        .arg(CheckpointSync::kIntervalMs / 1000)
                        .arg(why));
  });
  m_sync->start();
}

bool RemoteFollower::lastCheckpointCopied() {
  if (!m_sync || m_lastCopy == LastCopy::Done) return true;
  if (m_lastCopy == LastCopy::NotYet) {
    m_lastCopy = LastCopy::Running;
    emit linkChanged(Job::Link::Following, tr("copying the last checkpoint here"));
    // A copy under way may be of an older one: the last copy starts after it.
    const auto lastCopy = [this] {
      connect(
          m_sync.get(), &CheckpointSync::idle, this,
          [this] {
            m_lastCopy = LastCopy::Done;
            pollNow();
          },
          Qt::SingleShotConnection);
      m_sync->syncNow();
    };
    if (m_sync->isCopying())
      connect(m_sync.get(), &CheckpointSync::idle, this, lastCopy, Qt::SingleShotConnection);
    else
      lastCopy();
  }
  return false;
}

void RemoteFollower::startStream() {
  if (!m_following || m_streamUnsupported || !m_host->isReady()) return;
  if (!m_stream) {
    m_stream = std::make_unique<RemoteRunStream>(m_host);
    connect(m_stream.get(), &RemoteRunStream::answerAvailable, this, [this](const RemoteReadAnswer& answer) {
      if (!m_following) return;
      onAnswer(answer);
      // A chunk the mirror did not take (not where its copy stands): the stream goes on from the
      // mirror's sizes instead.
      if (m_following && m_stream->isRunning() && !m_mirror->endsWhere(answer)) startStream();
    });
    connect(m_stream.get(), &RemoteRunStream::ended, this, &RemoteFollower::onStreamEnded);
  }
  m_stream->start(RemoteHelper(m_host, m_record->helper, this)
                      .command(QStringList{"stream", m_record->remoteRunDir, QString::number(kMaxReadBytes),
                                           QString::number(m_record->pid), m_record->startTime} +
                               m_mirror->readArguments()));
}

void RemoteFollower::onStreamEnded(int status, const QString& why) {
  if (!m_following) return;
  if (status == -1 && !m_host->isReady()) return;  // the link went: it starts again when the link is back
  if (status == 0 && m_stream->answers() > 0) return startStream();  // its 10 minutes are over
  // A helper without `stream` (a run launched by an older app), no stat or sleep there, or a
  // stream that broke: reads every kPollMs from now on, as before streams.
  m_streamUnsupported = true;
  emit outputLine(tr("Streaming the run's files from %1 stopped (%2); reading them every %3 ms instead")
                      .arg(m_spec, why.isEmpty() ? tr("exit status %1").arg(status) : why)
                      .arg(kPollMs));
  pollNow();
}

void RemoteFollower::pollNow() {
  if (!m_following || m_pollInFlight || !m_host->isReady() || (m_stream && m_stream->isRunning())) return;
  m_pollInFlight = true;
  RemoteHelper(m_host, m_record->helper, this)
      .read(m_record->remoteRunDir, kMaxReadBytes, m_record->pid, m_record->startTime, m_mirror->readArguments(),
            [this](const ReadAnswer& a) {
              m_pollInFlight = false;
              if (!a.linkFailure.isEmpty() || !m_following) return;  // the link went: the next read asks again
              // No helper: the work folder went (a fresh runtime behind the same address).
              if (a.helperMissing)
                return emit gone(tr("the work folder %1 is not on %2 any more").arg(m_record->workDir, m_spec));
              onAnswer(a.run);
            });
}

void RemoteFollower::stopFollowing() {
  m_following = false;
  if (isSlurm()) m_options.queue->unfollow(m_record->slurmJobId);
  m_pollTimer.stop();
  m_goneTimer.stop();
  if (m_stream) m_stream->stop();
  m_sync.reset();
}

void RemoteFollower::end(int exitCode, Job::Link link, const QString& text) {
  stopFollowing();
  emit linkChanged(link, text);
  emit ended(exitCode);
}

void RemoteFollower::onAnswer(const RemoteReadAnswer& answer) {
  if (!answer.complete) return emit outputLine(tr("Reading the run on %1 failed: %2").arg(m_spec, answer.error));
  if (m_record->watchOnly && m_record->bootId.isEmpty()) {  // from now on a reboot there is seen
    m_record->bootId = answer.bootId;
    writeRemoteRecord(runDir(), *m_record);
  }
  if (!m_record->bootId.isEmpty() && answer.bootId != m_record->bootId)
    return emit gone(tr("%1 restarted (its boot id changed) while the run was going").arg(m_spec));
  if (!answer.runDirExists)
    return emit gone(tr("the run folder %1 is not on %2 any more").arg(m_record->remoteRunDir, m_spec));
  if (const QString why = m_mirror->apply(answer); !why.isEmpty()) return emit outputLine(why);
  const RunInfoReadResult read = readRunInfo(RunPaths{runDir().toStdString()});
  const bool ended = read.ok() && !isLive(read.info.status);
  // Ended, and its supervisor gone (it writes its last lines after run.json), all of it here.
  // A watched run has no supervisor of ours: its run.json alone says when it is over.
  const bool supervisorAlive = runLives(answer);
  if (!ended) m_endedSeen.invalidate();  // a requeued Slurm run goes on
  if (ended && !m_endedSeen.isValid()) m_endedSeen.start();
  // A Slurm job that lives after its run said it ended is requeued (or ending): no grace, and
  // for a while the queue is asked sooner, so that its end is seen within about a second.
  const bool graceOver = !isSlurm() && m_endedSeen.elapsed() > kSupervisorGraceMs;
  if (ended && supervisorAlive && isSlurm() && m_options.queue && read.info.status != RunStatus::Requeued &&
      m_endedSeen.elapsed() < kQueueSoonMs)
    m_options.queue->pollSoon();
  if (ended && RunMirror::caughtUp(answer) && (!supervisorAlive || graceOver)) {
    if (!lastCheckpointCopied()) return;
    if (!m_heldBy.isEmpty()) return emit linkChanged(Job::Link::Following, m_heldBy);
    return end(read.info.status == RunStatus::Failed ? 1 : 0, Job::Link::Ended, tr("finished"));
  }
  if (m_record->watchOnly || supervisorAlive || ended || !RunMirror::caughtUp(answer)) return;
  // Once more, in case run.json was being replaced as the supervisor ended.
  if (!m_supervisorGoneOnce) {
    m_supervisorGoneOnce = true;
    return;
  }
  if (!read.ok() && isSlurm()) {
    stopFollowing();
    return emit failed(tr("Slurm job %1 ended before its trainer wrote the run (%2): slurm-%1.out in the run folder "
                          "on %3 says why")
                           .arg(m_record->slurmJobId, lastJobState(),
                                m_spec));
  }
  if (!read.ok()) {  // it never wrote run.json: it refused the job, or died at once
    m_following = false;
    return emit failed(tr("The trainer on %1 ended without starting the run: %2")
                           .arg(m_spec, supervisorLogTail(runDir(), 3).join(' ')));
  }
  if (isSlurm()) {
    markRunKilled(RunPaths{runDir().toStdString()},
                  tr("killed: Slurm job %1 ended (%2) without its trainer saying how (cancelled, a node failure, "
                     "out of memory); Continue… resumes from the newest checkpoint here")
                      .arg(m_record->slurmJobId, lastJobState())
                      .toStdString());
    return end(-1, Job::Link::Ended, tr("ended"));
  }
  // Killed (a Kill, a kill there, out of memory): the mirror says so from now on.
  markRunKilled(RunPaths{runDir().toStdString()},
                tr("killed: its supervisor on %1 ended without saying how (a Kill, a kill there, or out of memory); "
                   "Continue… resumes from the newest checkpoint here")
                    .arg(m_spec)
                    .toStdString());
  end(-1, Job::Link::Ended, tr("ended"));
}

}  // namespace traindeck
