// Runs are started detached (a double fork, so the supervisor is not this app's child and
// outlives it), with its output in <run>/supervisor.log; started or attached, a run is watched
// by polling its pid, and how it ended is read from run.json.
#include "local_job.h"

#include <signal.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTimer>

#include "runlog/run_directory.h"
#include "runlog/run_exit.h"
#include "runlog/run_verdict.h"
#include "supervisor_log.h"

namespace traindeck {

LocalJob::LocalJob(QObject* parent) : Job(parent) {}

LocalJob::~LocalJob() = default;  // the run, detached, goes on

void LocalJob::setState(State state) {
  if (state == m_state) return;
  m_state = state;
  emit stateChanged(state);
}

qint64 LocalJob::supervisorPid() const {
  return m_attachedPid;
}

QStringList LocalJob::recentOutput() {
  readOutput();
  return QStringList(m_output.begin(), m_output.end());
}

void LocalJob::start(const QString& trainBinary, const QString& configPath, const QString& runDir,
                     const QStringList& extraArgs) {
  if (m_state != State::Idle) {
    emit failedToStart(tr("this job has already been started"));
    return;
  }
  m_runDir = runDir;
  QDir().mkpath(runDir);
  const QString log = QDir(runDir).filePath(run_file::kSupervisorLog);
  QStringList args{
      QStringLiteral("run"),          QStringLiteral("--config"), configPath, QStringLiteral("--run-dir"), runDir,
      QStringLiteral("--no-progress")};
  args += extraArgs;
  QProcess launcher;
  launcher.setProgram(trainBinary);
  launcher.setArguments(args);
  launcher.setStandardInputFile(QProcess::nullDevice());
  launcher.setStandardOutputFile(log, QIODevice::Append);
  launcher.setStandardErrorFile(log, QIODevice::Append);
  setState(State::Starting);
  qint64 pid = 0;
  if (!launcher.startDetached(&pid) || pid <= 0) {
    setState(State::Finished);
    emit failedToStart(tr("could not start %1: %2").arg(trainBinary, launcher.errorString()));
    return;
  }
  m_started.start();
  follow(static_cast<int>(pid));
  setState(State::Running);
}

void LocalJob::follow(int pid) {
  m_attachedPid = pid;
  m_process = std::make_unique<LocalSupervisorProcess>(pid, m_started);
  connect(m_process.get(), &RunProcess::stopNotDelivered, this, [this] {
    if (m_state == State::Stopping) setState(State::Running);
  });
  m_attachTimer = new QTimer(this);
  m_attachTimer->setInterval(kAttachPollMs);
  connect(m_attachTimer, &QTimer::timeout, this, &LocalJob::pollAttached);
  m_attachTimer->start();
}

QString LocalJob::attach(const QString& runDir) {
  if (m_state != State::Idle) return tr("this job is already in use");
  const RunInfoReadResult read = readRunInfo(RunPaths{runDir.toStdString()});
  if (!read.ok()) return tr("%1 has no readable run.json (%2)").arg(runDir, QString::fromStdString(read.error));
  if (!isLive(read.info.status))
    return tr("the run is not running (status %1)").arg(QString::fromUtf8(toString(read.info.status)));
  if (read.info.host != hostName())
    return tr("the run executes on %1, not on this machine (%2): its pid means nothing here")
        .arg(QString::fromStdString(read.info.host), QString::fromStdString(hostName()));
  const int pid = read.info.supervisorPid;
  if (const LocalSupervisorProcess found(pid, {}); !found.lives()) {  // found dead: it says so from now on, everywhere
    markRunKilled(RunPaths{runDir.toStdString()}, found.verdictReason({}).toStdString());
    return tr("the run's supervisor (pid %1) is no longer running; the run is marked killed").arg(pid);
  }
  m_runDir = runDir;
  follow(pid);
  setState(State::Running);
  return {};
}

void LocalJob::pollAttached() {
  if (m_process->lives()) return;
  m_attachTimer->stop();
  const RunPaths paths{m_runDir.toStdString()};
  // Gone: the end rule says what run.json says now. The supervisor writes its verdict before it
  // exits, so this look is the second one.
  const RunInfoReadResult read = readRunInfo(paths);
  const RunEnd end = m_process->judge(
      {.run = read.ok() ? std::optional(read.info) : std::nullopt, .processesLive = false, .goneBefore = true});
  if (end.action == RunEnd::Action::NeverStarted) {
    // Gone before it wrote any run.json (it could not load, or crashed at once): failed with the
    // last line it printed, so the run list has it and says why.
    const QString said = supervisorLogTail(m_runDir, 1).value(0, tr("it printed nothing"));
    const QString reason = m_process->neverStartedReason(said);
    markRunFailed(paths, reason.toStdString(),
                  RunIdentity{QFileInfo(m_runDir).fileName().toStdString(), {}, hostName()});
    readOutput();
    setState(State::Finished);
    if (m_started.isValid()) emit failedToStart(reason);
    return emit finished(end.exitCode);
  } else if (end.action == RunEnd::Action::WriteVerdict) {
    markRunKilled(paths, m_process->verdictReason(end).toStdString(), {}, end.cause);
  }
  readOutput();
  setState(State::Finished);
  // Refused by its trainer before any rank started (an invalid config): the start failed.
  if (end.action == RunEnd::Action::End && read.info.status == RunStatus::Failed && read.info.rankPids.empty() &&
      m_started.isValid())
    emit failedToStart(QString::fromStdString(read.info.exitReason));
  emit finished(end.exitCode);
}

void LocalJob::stop() {
  if (m_state != State::Running && m_state != State::Starting) return;
  setState(State::Stopping);
  m_process->stop();
}

void LocalJob::kill() {
  if (m_state == State::Idle || m_state == State::Finished) return;
  m_process->kill();
}

void LocalJob::readOutput() {
  const QStringList lines = supervisorLogTail(m_runDir, kOutputLines);
  m_output.assign(lines.begin(), lines.end());
}

}  // namespace traindeck
