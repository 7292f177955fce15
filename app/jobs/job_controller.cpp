#include "job_controller.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <chrono>

#include "config/validate.h"
#include "local_job.h"
#include "runlog/run_directory.h"

namespace traindeck {

namespace {

QString absolute(const QString& path) {
  return QFileInfo(path).absoluteFilePath();
}

}  // namespace

JobController::JobController(const QString& runsRoot, const QString& trainBinary, QObject* parent)
    : QObject(parent), m_runsRoot(absolute(runsRoot)), m_trainBinary(trainBinary) {}

JobController::~JobController() = default;

QString JobController::newRunDir(const RunConfig& config) const {
  const QString id = QString::fromStdString(makeRunId(std::chrono::system_clock::now(), slugify(config.name)));
  // Two starts in one second with one name: the second gets "-2", and so on.
  QString dir = QDir(m_runsRoot).filePath(id);
  for (int n = 2; QFileInfo::exists(dir) || QFileInfo::exists(dir + ".job.yaml"); ++n)
    dir = QDir(m_runsRoot).filePath(QStringLiteral("%1-%2").arg(id).arg(n));
  return dir;
}

JobController::Started JobController::start(const RunConfig& config, const QString& jobFile, const QString& yamlText,
                                            const QStringList& extraArgs) {
  if (config.target.kind == TargetKind::Ssh)
    return {{},
            tr("This job's target is the SSH host \"%1\", and TrainDeck cannot run jobs on other machines yet. "
               "Set Target to local to train on this machine, or run traindeck-train on that host yourself.")
                .arg(QString::fromStdString(config.target.host))};
  if (!QDir().mkpath(m_runsRoot)) return {{}, tr("Could not make the runs folder %1.").arg(m_runsRoot)};
  const QString runDir = newRunDir(config);
  QString configPath = jobFile;
  if (configPath.isEmpty()) {
    configPath = runDir + ".job.yaml";
    QFile out(configPath);
    if (!out.open(QIODevice::WriteOnly | QIODevice::NewOnly) || out.write(yamlText.toUtf8()) < 0 || !out.flush())
      return {{}, tr("Could not write the job file %1: %2.").arg(configPath, out.errorString())};
  }
  auto job = std::make_unique<LocalJob>();
  LocalJob* local = job.get();
  adopt(runDir, std::move(job));
  local->start(m_trainBinary, configPath, runDir, extraArgs);
  return {runDir, {}};
}

int JobController::attachRunning() {
  int found = 0;
  const QFileInfoList dirs = QDir(m_runsRoot).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot);
  for (const QFileInfo& dir : dirs) {
    const RunInfoReadResult read = readRunInfo(RunPaths{dir.absoluteFilePath().toStdString()});
    if (!read.ok() || !isLive(read.info.status) || read.info.host != hostName()) continue;
    if (attach(dir.absoluteFilePath()).isEmpty()) ++found;
  }
  return found;
}

QString JobController::attach(const QString& runDir) {
  const QString dir = absolute(runDir);
  if (Job* known = jobFor(dir); known && known->isActive()) return {};
  auto job = std::make_unique<LocalJob>();
  const QString why = job->attach(dir);
  if (!why.isEmpty()) return why;
  adopt(dir, std::move(job));
  return {};
}

Job* JobController::jobFor(const QString& runDir) const {
  const auto it = m_jobs.find(absolute(runDir));
  return it == m_jobs.end() ? nullptr : it->second.get();
}

void JobController::adopt(const QString& runDir, std::unique_ptr<Job> job) {
  Job* raw = job.get();
  connect(raw, &Job::stateChanged, this, [this, runDir](Job::State state) { emit jobStateChanged(runDir, state); });
  connect(raw, &Job::finished, this, [this, runDir](int exitCode) { emit jobFinished(runDir, exitCode); });
  connect(raw, &Job::failedToStart, this,
          [this, runDir](const QString& reason) { emit jobFailedToStart(runDir, reason); });
  m_jobs[runDir] = std::move(job);  // an ended job of the same run (a resume) is replaced
}

}  // namespace traindeck
