// One read in flight at a time, and none while the stream runs; an answer cut by the link is
// dropped and the next read (or stream) asks again from the same offsets, the mirror's sizes. The
// end waits for the last checkpoint copy and anything held (holdEnd).
#include "remote_follower.h"

#include "remote_helper.h"
#include "runlog/run_directory.h"
#include "runlog/run_verdict.h"
#include "supervisor_log.h"

namespace traindeck {

RemoteFollower::RemoteFollower(RemoteHost* host, RemoteRecord* record, RunMirror* mirror, RunProcess* process,
                               Options options, QObject* parent)
    : QObject(parent),
      m_host(host),
      m_record(record),
      m_mirror(mirror),
      m_process(process),
      m_spec(record->ssh.spec),
      m_options(options) {
  connect(m_process, &RunProcess::lookAgain, this, &RemoteFollower::pollNow);
  connect(m_process, &RunProcess::outputLine, this, &RemoteFollower::outputLine);
  connect(m_process, &RunProcess::stateWords, this, [this](const QString& words) {
    if (m_following && m_host->isReady()) emit linkChanged(Job::Link::Following, words);
  });
  connect(m_process, &RunProcess::cannotRun, this, [this](const QString& sentence) {
    if (!m_following) return;
    stopFollowing();
    emit failed(sentence);
  });
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
  if (m_following) m_process->unfollow();
}

void RemoteFollower::start() {
  m_following = true;
  m_mirror->addGrowingFiles(m_process->ownFiles());
  const bool ready = m_host->isReady();
  emit linkChanged(ready ? Job::Link::Following : Job::Link::Connecting, ready ? tr("following") : tr("connecting"));
  if (!ready && m_options.goneAfterMs > 0) m_goneTimer.start(m_options.goneAfterMs);
  m_pollTimer.start();
  startStream();
  pollNow();  // where no stream runs
  if (m_process->isOurs() && m_options.keepHere > 0) startSync();
  m_process->follow();
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
  m_process->unfollow();
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
  if (m_record->bootId.isEmpty()) {  // a watched run: from now on a reboot there is seen
    m_record->bootId = answer.bootId;
    emit recordChanged();
  }
  if (!m_record->bootId.isEmpty() && answer.bootId != m_record->bootId)
    return emit gone(tr("%1 restarted (its boot id changed) while the run was going").arg(m_spec));
  if (!answer.runDirExists)
    return emit gone(tr("the run folder %1 is not on %2 any more").arg(m_record->remoteRunDir, m_spec));
  if (const QString why = m_mirror->apply(answer); !why.isEmpty()) return emit outputLine(why);
  const RunPaths paths{runDir().toStdString()};
  const RunInfoReadResult read = readRunInfo(paths);
  const bool ended = read.ok() && !isLive(read.info.status);
  const bool lives = m_process->lives(answer.supervisorAlive);
  if (!ended) m_endedSeen.invalidate();  // a requeued Slurm run goes on
  if (ended && !m_endedSeen.isValid()) m_endedSeen.start();
  if (ended && lives && read.info.status != RunStatus::Requeued) m_process->runSaysEnded(m_endedSeen.elapsed());
  RunSighting seen{.run = read.ok() ? std::optional(read.info) : std::nullopt,
                   .processesLive = lives,
                   .caughtUp = RunMirror::caughtUp(answer),
                   .goneBefore = m_goneOnce,
                   .endedForMs = m_endedSeen.isValid() ? m_endedSeen.elapsed() : -1};
  const RunEnd verdict = m_process->judge(seen);
  // Gone twice in a row before a verdict is written: run.json may have been being replaced.
  m_goneOnce = !lives && seen.caughtUp;
  switch (verdict.action) {
    case RunEnd::Action::Wait:
      return;
    case RunEnd::Action::End:
      if (!lastCheckpointCopied()) return;
      if (!m_heldBy.isEmpty()) return emit linkChanged(Job::Link::Following, m_heldBy);
      return end(verdict.exitCode, Job::Link::Ended, tr("finished"));
    case RunEnd::Action::NeverStarted:
      stopFollowing();
      return emit failed(m_process->neverStartedReason(supervisorLogTail(runDir(), 3).join(' ')));
    case RunEnd::Action::WriteVerdict:
      // Killed (a Kill, a kill there, out of memory, a cancelled job): the mirror says so from now on.
      markRunKilled(paths, m_process->verdictReason(verdict).toStdString(), {}, verdict.cause);
      return end(verdict.exitCode, Job::Link::Ended, tr("ended"));
  }
}

}  // namespace traindeck
