// The job's side of a remote run: its state and link as the pages see them, the connection, and
// who does what when: RemoteBootstrap the start's steps, RemoteFollower everything after the
// launch, RuntimeCheck the question whether a run's old runtime lives. Stop, Kill and "alive?"
// are the run's process's (run_process.h: a supervisor there, a Slurm job, a watched folder).
#include "remote_job.h"

#include <QDir>
#include <QFileInfo>
#include <QTimer>

#include "checkpoint_sync.h"
#include "remote_helper.h"
#include "remote_run_process.h"
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
  m_options.saveRecord = [this] { return saveRecord(); };
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
  if (m_process) {
    m_process->unfollow();
    m_process.release()->deleteLater();
  }
  if (m_bootstrap) m_bootstrap.release()->deleteLater();
  if (m_host) m_host->forgetCallbacks();
  if (m_host) m_host.release()->deleteLater();  // it may be inside one of its own signals now
}

void RemoteJob::fail(const QString& sentence) {
  if (m_state == State::Finished) return;
  setLink(Link::Ended, {});  // not "connecting" any more: the run list says failed
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
  if (m_record.namesItsProcess()) {
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

QString RemoteJob::saveRecord() {
  return writeRemoteRecord(runDir(), m_record);
}

void RemoteJob::startFollowing() {
  endSteps();
  setState(State::Running);
  m_process = remoteRunProcess(m_host.get(), &m_record, runDir(), m_slurmQueues);
  connect(m_process.get(), &RunProcess::stateWords, this, [this](const QString& words) {
    if (m_placeText == words) return;
    m_placeText = words;
    emit placeTextChanged(words);
  });
  connect(m_process.get(), &RunProcess::stopNotDelivered, this, [this] {
    if (m_state == State::Stopping) setState(State::Running);  // Stop can be pressed again
  });
  m_follower =
      std::make_unique<RemoteFollower>(m_host.get(), &m_record, m_mirror.get(), m_process.get(),
                                       RemoteFollower::Options{.keepHere = m_keepHere, .goneAfterMs = m_goneAfterMs});
  connect(m_follower.get(), &RemoteFollower::recordChanged, this, [this] { saveRecord(); });
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
  if (m_process && !m_process->isOurs()) return fail(tr("Runtime gone: %1.").arg(reason));  // not ours to continue
  const QString last = CheckpointSync::newestCheckpoint(runDir());
  const QString next =
      last.isEmpty()
          ? tr("No checkpoint of it was copied here before: start it again.")
          : tr("Last checkpoint %1 is here: Continue on another host (the run's menu, or traindeck --continue %2 --on "
               "HOST) resumes it from there.")
                .arg(last, runDir());
  fail(tr("Runtime gone: %1. %2").arg(reason, next));
}

QString RemoteJob::stopRefusal() const {
  return m_process ? m_process->stopRefusal() : QString();
}

void RemoteJob::stop() {
  if (m_state == State::Starting) return cancelStart();
  if (m_state != State::Running || !m_process) return;
  if (const QString why = m_process->stopRefusal(); !why.isEmpty()) return addOutput(why);
  setState(State::Stopping);
  m_process->stop();
}

void RemoteJob::kill() {
  if (m_state == State::Starting) return cancelStart();
  if ((m_state != State::Running && m_state != State::Stopping) || !m_process) return;
  if (const QString why = m_process->stopRefusal(); !why.isEmpty()) return addOutput(why);
  m_process->kill();
}

void RemoteJob::cancelStart() {
  if (m_previousCheck)
    return refuse(tr("Stopped before the run continued (while asking the host it ran on)."));
  if (!m_bootstrap) return;
  if (const QString why = m_bootstrap->cancel(); !why.isEmpty()) fail(why);
}

}  // namespace traindeck
