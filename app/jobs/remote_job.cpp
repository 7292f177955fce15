// The job's side of a remote run: its state and link as the pages see them, the connection, and
// who does what when: RemoteBootstrap the start's steps, RemoteFollower everything after the
// launch, RuntimeCheck the question whether a run's old runtime lives. Stop and Kill are the
// helper's `signal` (refused there when the pid now names another process).
#include "remote_job.h"

#include <QDir>
#include <QFileInfo>
#include <QTimer>

#include "checkpoint_sync.h"
#include "remote_helper.h"
#include "runlog/run_directory.h"
#include "runlog/run_verdict.h"
#include "supervisor_log.h"

namespace traindeck {

RemoteJob::RemoteJob(QObject* parent) : Job(parent) {}

RemoteJob::~RemoteJob() = default;

void RemoteJob::setState(State state) {
  if (m_state == state) return;
  m_state = state;
  emit stateChanged(state);
}

void RemoteJob::setLink(Link link, const QString& text) {
  m_link = link;
  if (m_linkText == text) return;
  m_linkText = text;
  emit linkTextChanged(text);
}

void RemoteJob::addOutput(const QString& text) {
  m_output.push_back(text);
  while (m_output.size() > static_cast<std::size_t>(kOutputLines)) m_output.pop_front();
  emit outputLine(0, text);
}

QStringList RemoteJob::recentOutput() {
  return QStringList(m_output.begin(), m_output.end()) + supervisorLogTail(runDir(), 50);
}

const HostProbe& RemoteJob::probe() const {
  static const HostProbe none;
  return m_bootstrap ? m_bootstrap->probe() : none;
}

void RemoteJob::beginStep(const QString& name, const QString& detail) {
  if (!m_clock.isValid()) m_clock.start();
  endSteps();
  m_steps.push_back(BootstrapStep{name, detail, m_clock.elapsed(), -1});
  m_currentStepName = name;
  emit stepStarted(0, name, detail);
}

void RemoteJob::endSteps() {
  if (!m_steps.isEmpty() && m_steps.back().endedMs < 0) m_steps.back().endedMs = m_clock.elapsed();
}

void RemoteJob::makeHost(const SshTarget& target) {
  m_host = std::make_unique<RemoteHost>(target);
  if (m_hostKeyPrompt) m_host->setHostKeyPrompt(m_hostKeyPrompt);
  if (m_interactivePrompt) m_host->setInteractivePrompt(m_interactivePrompt);
  // While following, the follower says what the link does (and a link never ends a run).
  connect(m_host.get(), &RemoteHost::connectionFailed, this, [this](const QString& message) {
    if (m_state == State::Starting) fail(message);
  });
}

void RemoteJob::makeBootstrap() {
  m_bootstrap = std::make_unique<RemoteBootstrap>(m_host.get(), &m_launch, &m_record, m_mirror.get(), m_options);
  RemoteBootstrap* b = m_bootstrap.get();
  connect(b, &RemoteBootstrap::stepStarted, this, &RemoteJob::beginStep);
  connect(b, &RemoteBootstrap::outputLine, this, &RemoteJob::addOutput);
  connect(b, &RemoteBootstrap::transferProgress, this,
          [this](qint64 done, qint64 total) { emit transferProgress(0, done, total); });
  connect(b, &RemoteBootstrap::probed, this, &RemoteJob::probed);
  connect(b, &RemoteBootstrap::readyToLaunch, this, &RemoteJob::readyToLaunch);
  connect(b, &RemoteBootstrap::failed, this, &RemoteJob::fail);
  connect(b, &RemoteBootstrap::launched, this, [this](bool stopAsked) {
    startFollowing();
    if (stopAsked) stop();  // Stop was pressed while the launch was on its way
  });
  connect(b, &RemoteBootstrap::trainerHome, this, [this] {
    if (m_follower) m_follower->holdEnd({});
  });
}

void RemoteJob::releaseHost() {
  if (m_bootstrap) m_bootstrap->halt();
  if (m_follower) m_follower.release()->deleteLater();  // before the connection it reads over; maybe in its signal
  if (m_bootstrap) m_bootstrap.release()->deleteLater();
  if (m_host) m_host->forgetCallbacks();
  if (m_host) m_host.release()->deleteLater();  // it may be inside one of its own signals now
}

void RemoteJob::fail(const QString& sentence) {
  if (m_state == State::Finished) return;
  m_link = Link::Ended;
  endSteps();
  addOutput(sentence);
  releaseHost();
  // The mirror says what happened, so the run list shows a failed run with its reason.
  markRunFailed(RunPaths{runDir().toStdString()}, sentence.toStdString(),
                {.id = QFileInfo(runDir()).fileName().toStdString(),
                 .name = m_launch.config.name,
                 .host = m_launch.target.spec.toStdString()});
  const bool wasStarting = m_state == State::Starting;
  setState(State::Finished);
  if (wasStarting) emit failedToStart(sentence);
  emit finished(1);
}

void RemoteJob::watch(const RemoteLaunch& launch, const QString& remoteRunDir) {
  m_options.watchDir = remoteRunDir;
  start(launch);
}

void RemoteJob::continueOn(const RemoteLaunch& launch) {
  RemoteRecord before;
  if (readRemoteRecord(launch.localRunDir, &before)) m_options.continuedFrom = before.ssh.spec;
  m_options.continuing = true;
  start(launch);
}

void RemoteJob::continueOnceGone(const RemoteLaunch& launch, const RemoteRecord& previous, bool batch) {
  if (m_state != State::Idle) return;
  m_launch = launch;
  setState(State::Starting);
  beginStep(QStringLiteral("previous host"), tr("is the run still going on %1?").arg(previous.ssh.spec));
  setLink(Link::Connecting, tr("asking %1").arg(previous.ssh.spec));
  m_previousCheck = std::make_unique<RuntimeCheck>(previous, m_hostKeyPrompt, batch);
  if (!batch) m_previousCheck->setInteractivePrompt(m_interactivePrompt);
  connect(m_previousCheck.get(), &RuntimeCheck::answered, this, [this, previous](bool alive, const QString& why) {
    m_previousCheck.release()->deleteLater();  // its link goes; not from inside its own signal
    if (m_state != State::Starting) return;  // cancelled meanwhile
    if (alive)
      return refuse(tr("%1 is still running on %2 (%3): stop it there first (Stop, or traindeck --stop %4), or "
                       "follow it (traindeck --attach %4).")
                        .arg(QFileInfo(runDir()).fileName(), previous.ssh.spec, why, runDir()));
    const QString gone = tr("Runtime gone: %1.").arg(why);
    addOutput(gone);
    markRunFailed(RunPaths{runDir().toStdString()}, gone.toStdString());
    endSteps();
    m_state = State::Idle;  // quietly: the start goes on from here, still "starting" to everyone
    continueOn(m_launch);
  });
  m_previousCheck->start();
}

void RemoteJob::refuse(const QString& sentence) {
  endSteps();
  addOutput(sentence);
  releaseHost();
  setLink(Link::Ended, {});
  setState(State::Finished);
  emit failedToStart(sentence);
  emit finished(1);
}

void RemoteJob::start(const RemoteLaunch& launch) {
  if (m_state != State::Idle) return;
  m_launch = launch;
  m_mirror = std::make_unique<RunMirror>(launch.localRunDir);
  QDir().mkpath(launch.localRunDir);
  m_record = {};
  m_record.ssh = launch.target;
  setState(State::Starting);
  makeHost(launch.target);
  makeBootstrap();
  if (const QString why = m_bootstrap->prepare(); !why.isEmpty()) return fail(why);
  beginStep(QStringLiteral("connect"), launch.target.spec);
  setLink(Link::Connecting, tr("connecting"));
  m_bootstrap->start();
  m_host->connectToHost();
}

void RemoteJob::releaseLaunch() {
  if (m_state == State::Starting && m_bootstrap) m_bootstrap->releaseLaunch();
}

QString RemoteJob::attach(const QString& runDir, bool batch) {
  if (m_state != State::Idle) return tr("this job is already in use");
  QString error;
  if (!readRemoteRecord(runDir, &m_record, &error))
    return error.isEmpty() ? tr("%1 is not the mirror of a remote run (no remote.json)").arg(runDir) : error;
  const RunInfoReadResult read = readRunInfo(RunPaths{runDir.toStdString()});
  if (read.ok() && !isLive(read.info.status))
    return tr("the run is not running (status %1)").arg(QString::fromUtf8(toString(read.info.status)));
  m_launch.config.name = read.ok() ? read.info.name : QFileInfo(runDir).fileName().toStdString();
  m_launch.target = m_record.target(batch);
  m_launch.localRunDir = runDir;
  m_mirror = std::make_unique<RunMirror>(runDir);
  makeHost(m_launch.target);
  m_host->connectToHost();
  if (m_record.pid > 0 || m_record.watchOnly || !m_record.slurmJobId.isEmpty()) {
    startFollowing();
    return {};
  }
  // Launched while the answer was lost (the app closed on the way): the host says what it
  // started, if anything, once the link is up.
  setState(State::Starting);
  setLink(Link::Connecting, tr("connecting"));
  makeBootstrap();
  m_bootstrap->findLaunched();
  return {};
}

void RemoteJob::startFollowing() {
  endSteps();
  setState(State::Running);
  SlurmQueue* queue = !m_record.slurmJobId.isEmpty() && m_slurmQueues ? m_slurmQueues->forLogin(spec()) : nullptr;
  m_follower = std::make_unique<RemoteFollower>(
      m_host.get(), &m_record, m_mirror.get(),
      RemoteFollower::Options{.keepHere = m_keepHere, .goneAfterMs = m_goneAfterMs, .queue = queue});
  connect(m_follower.get(), &RemoteFollower::linkChanged, this, &RemoteJob::setLink);
  connect(m_follower.get(), &RemoteFollower::outputLine, this, &RemoteJob::addOutput);
  connect(m_follower.get(), &RemoteFollower::gone, this, &RemoteJob::runtimeGone);
  connect(m_follower.get(), &RemoteFollower::failed, this, &RemoteJob::fail);
  connect(m_follower.get(), &RemoteFollower::ended, this, [this](int exitCode) {
    releaseHost();
    setState(State::Finished);
    emit finished(exitCode);
  });
  if (m_bootstrap && m_bootstrap->bringingTrainerHome())
    m_follower->holdEnd(tr("bringing the trainer built there home"));
  m_follower->start();
}

void RemoteJob::runtimeGone(const QString& reason) {
  if (m_record.watchOnly) return fail(tr("Runtime gone: %1.").arg(reason));  // not ours to continue
  const QString last = CheckpointSync::newestCheckpoint(runDir());
  const QString next =
      last.isEmpty()
          ? tr("No checkpoint of it was copied here before: start it again.")
          : tr("Last checkpoint %1 is here: Continue on another host (the run's menu, or traindeck --continue %2 --on "
               "HOST) resumes it from there.")
                .arg(last, runDir());
  fail(tr("Runtime gone: %1. %2").arg(reason, next));
}

void RemoteJob::signalSupervisor(const QString& signal) {
  if (!m_host) return;
  RemoteHelper(m_host.get(), m_record.helper, this)
      .signal(signal, m_record.pid, m_record.startTime, [this, signal](const SignalAnswer& a) {
        if (!a.ok()) {
          const QString why = !a.linkFailure.isEmpty() ? a.linkFailure
                              : a.helperMissing ? tr("the work folder %1 is not there any more").arg(m_record.workDir)
                                                : a.why();
          addOutput(tr("Could not send %1 to the run on %2: %3; try again once the link is back.")
                        .arg(signal, m_launch.target.spec, why));
          if (m_state == State::Stopping) setState(State::Running);  // Stop can be pressed again
        } else if (a.ended)
          addOutput(tr("The run's supervisor on %1 had ended already.").arg(m_launch.target.spec));
      });
}

void RemoteJob::stopSlurmJob() {
  RemoteHelper(m_host.get(), m_record.helper, this)
      .stopJob(m_record.slurmJobId, m_record.remoteRunDir, [this](const SignalAnswer& a) {
        if (!a.ok()) {
          addOutput(tr("Could not ask Slurm job %1 to stop: %2").arg(m_record.slurmJobId, a.why()));
          if (m_state == State::Stopping) setState(State::Running);
          return;
        }
        addOutput(tr("Slurm job %1 asked to checkpoint and stop").arg(m_record.slurmJobId));
        QTimer::singleShot(kStopGraceMs, this, [this] {
          if (m_state != State::Stopping || !m_host) return;
          addOutput(tr("Slurm job %1 did not stop within %2 s: cancelling it")
                        .arg(m_record.slurmJobId)
                        .arg(kStopGraceMs / 1000));
          cancelSlurmJob();
        });
      });
}

void RemoteJob::cancelSlurmJob() {
  RemoteHelper(m_host.get(), m_record.helper, this).cancelJob(m_record.slurmJobId, [this](const YesNoAnswer& a) {
    if (!a.ok()) addOutput(tr("Could not cancel Slurm job %1: %2").arg(m_record.slurmJobId, a.why()));
  });
}

QString RemoteJob::stopRefusal() const {
  return m_record.watchOnly ? tr("a run started on %1 outside TrainDeck (watched): stop it there").arg(spec())
                            : QString();
}

bool RemoteJob::refusedAsWatched() {
  if (!m_record.watchOnly) return false;
  addOutput(tr("This run was started on %1 outside TrainDeck: stop it there.").arg(m_launch.target.spec));
  return true;
}

void RemoteJob::stop() {
  if (m_state == State::Starting) return cancelStart();
  if (refusedAsWatched()) return;
  if (m_state != State::Running || !m_host) return;
  if (m_record.slurmJobId.isEmpty())
    signalSupervisor(QStringLiteral("TERM"));
  else
    stopSlurmJob();
  setState(State::Stopping);
}

void RemoteJob::kill() {
  if (m_state == State::Starting) return cancelStart();
  if (refusedAsWatched()) return;
  if ((m_state != State::Running && m_state != State::Stopping) || !m_host) return;
  if (!m_record.slurmJobId.isEmpty()) return cancelSlurmJob();
  signalSupervisor(QStringLiteral("KILL"));
}

void RemoteJob::cancelStart() {
  if (m_previousCheck)
    return refuse(tr("Stopped before the run continued (while asking the host it ran on)."));
  if (!m_bootstrap) return;
  if (const QString why = m_bootstrap->cancel(); !why.isEmpty()) fail(why);
}

}  // namespace traindeck
