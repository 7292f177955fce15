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
#include "runlog/run_verdict.h"
#include "supervisor_log.h"
#include "trainer_process.h"

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
  m_attachedPid = static_cast<int>(pid);
  m_started.start();
  watchPid();
  setState(State::Running);
}

void LocalJob::watchPid() {
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
  if (!isTrainerProcess(pid)) {  // found dead: it says so from now on, everywhere
    markRunKilled(RunPaths{runDir.toStdString()}, diedWithoutVerdict(pid).toStdString());
    return tr("the run's supervisor (pid %1) is no longer running; the run is marked killed").arg(pid);
  }
  m_runDir = runDir;
  m_attachedPid = pid;
  watchPid();
  setState(State::Running);
  return {};
}

void LocalJob::pollAttached() {
  // Just after a start the process may not have exec'd traindeck-train yet: alive is enough.
  const bool young = m_started.isValid() && m_started.elapsed() < 3000;
  if (isTrainerProcess(m_attachedPid) || (young && ::kill(m_attachedPid, 0) == 0)) return;
  m_attachTimer->stop();
  const RunPaths paths{m_runDir.toStdString()};
  // One gone before it wrote any run.json (it could not load, or crashed at once) failed with the
  // last line it printed, so the run list has it and says why.
  if (!QFileInfo::exists(QString::fromStdString(paths.runJson()))) {
    const QString said = supervisorLogTail(m_runDir, 1).value(0, tr("it printed nothing"));
    markRunFailed(paths, tr("traindeck-train ended before it started the run: %1").arg(said).toStdString(),
                  RunIdentity{QFileInfo(m_runDir).fileName().toStdString(), {}, hostName()});
  }
  // How it ended, as the supervisor wrote it: finished or stopped 0, failed 1. One that says it
  // is still going is dead without a verdict: killed, from here or from outside.
  const RunInfoReadResult read = readRunInfo(paths);
  if (read.ok() && isLive(read.info.status))
    markRunKilled(paths, m_killRequested
                             ? tr("killed from TrainDeck (no checkpoint; --resume continues from the last one)")
                                   .toStdString()
                             : diedWithoutVerdict(m_attachedPid).toStdString());
  const bool ended = read.ok() && !isLive(read.info.status);
  const int exitCode = !ended ? -1 : read.info.status == RunStatus::Failed ? 1 : 0;
  readOutput();
  setState(State::Finished);
  // Refused by its trainer before any rank started (an invalid config): the start failed.
  if (ended && read.info.status == RunStatus::Failed && read.info.rankPids.empty() && m_started.isValid())
    emit failedToStart(QString::fromStdString(read.info.exitReason));
  emit finished(exitCode);
}

void LocalJob::stop() {
  if (m_state != State::Running && m_state != State::Starting) return;
  if (!signalTrainerProcess(m_attachedPid, SIGTERM)) return;
  setState(State::Stopping);
}

void LocalJob::kill() {
  if (m_state == State::Idle || m_state == State::Finished) return;
  m_killRequested = signalTrainerProcess(m_attachedPid, SIGKILL);
}

QString LocalJob::diedWithoutVerdict(int pid) {
  return tr("killed: its supervisor (pid %1) ended without saying how (a kill from outside, or out of memory); "
            "--resume continues from the last checkpoint")
      .arg(pid);
}

void LocalJob::readOutput() {
  const QStringList lines = supervisorLogTail(m_runDir, kOutputLines);
  m_output.assign(lines.begin(), lines.end());
}

}  // namespace traindeck
