#include "job_controller.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QThread>
#include <chrono>

#include "checkpoint_sync.h"
#include "config/config_io.h"
#include "config/devices.h"
#include "config/validate.h"
#include "host_store.h"
#include "local_job.h"
#include "machine_room.h"
#include "multi_host_job.h"
#include "host_model.h"
#include "probed_devices.h"
#include "remote_job.h"
#include "remote_record.h"
#include "remote_uploads.h"
#include "run_names.h"
#include "runlog/run_directory.h"
#include "ssh_error.h"

namespace traindeck {

namespace {

QString absolute(const QString& path) {
  return QFileInfo(path).absoluteFilePath();
}

}  // namespace

JobController::JobController(const QString& runsRoot, const QString& trainBinary, QObject* parent)
    : QObject(parent), m_runsRoot(absolute(runsRoot)), m_trainBinary(trainBinary) {}

JobController::~JobController() = default;

QString JobController::freeRunDir(const QString& name) const {
  // Taken already (two starts in one second with one name): "-2", and so on.
  QString dir = QDir(m_runsRoot).filePath(name);
  for (int n = 2; QFileInfo::exists(dir) || QFileInfo::exists(dir + ".job.yaml"); ++n)
    dir = QDir(m_runsRoot).filePath(QStringLiteral("%1-%2").arg(name).arg(n));
  return dir;
}

QString JobController::newRunDir(const RunConfig& config) const {
  return freeRunDir(QString::fromStdString(makeRunId(std::chrono::system_clock::now(), slugify(config.name))));
}

JobController::Started JobController::start(const RunConfig& jobConfig, const QString& jobFile, const QString& yamlText,
                                            const QStringList& jobArgs,
                                            const std::function<void(const QString& runDir)>& chosen,
                                            std::shared_ptr<SlurmArray> array) {
  if (!QDir().mkpath(m_runsRoot)) return {{}, tr("Could not make the runs folder %1.").arg(m_runsRoot)};
  // The run is named for what sets it apart from the job's earlier runs (run_names.h).
  RunConfig config = jobConfig;
  const QString baseDir = jobFile.isEmpty() ? m_runsRoot : QFileInfo(jobFile).absolutePath();
  config.name = distinctRunName(jobConfig, m_runsRoot, baseDir).toStdString();
  QStringList extraArgs = jobArgs;
  if (config.name != jobConfig.name) extraArgs << nameOverrideArgs(config.name);
  const QString runDir = newRunDir(config);
  if (chosen) chosen(runDir);
  QString configPath = jobFile;
  if (configPath.isEmpty()) {
    configPath = runDir + ".job.yaml";
    QFile out(configPath);
    if (!out.open(QIODevice::WriteOnly | QIODevice::NewOnly) || out.write(yamlText.toUtf8()) < 0 || !out.flush())
      return {{}, tr("Could not write the job file %1: %2.").arg(configPath, out.errorString())};
  }
  const std::vector<std::string> hosts = nodeHosts(config.target);
  if (hosts.size() > 1) return startOnHosts(config, runDir, configPath, extraArgs);
  if (hosts.size() == 1) {  // target.hosts naming one host: that host, as target.host
    config.target.host = hosts.front();
    config.target.hosts.clear();
  }
  if (isRemote(config.target.kind)) return startRemote(config, runDir, configPath, extraArgs, std::move(array));
  auto job = std::make_unique<LocalJob>();
  LocalJob* local = job.get();
  adopt(runDir, std::move(job));
  local->start(m_trainBinary, configPath, runDir, extraArgs);
  return {runDir, {}};
}

namespace {

// The launch for config.target (its host resolved through ~/.ssh/config), or nullopt and *error.
std::optional<RemoteLaunch> remoteLaunch(const RunConfig& config, const JobController::RemoteOptions& options,
                                         QString* error) {
  RemoteLaunch launch;
  try {  // the host spec and ~/.ssh/config can both be wrong: a sentence, not a crash
    launch.target = sshTargetOf(config.target, {.knownHostsFile = options.knownHostsFile,
                                                .configFile = options.sshConfigFile,
                                                .batch = options.batch});
  } catch (const SshError& e) {
    *error = JobController::tr("Cannot reach target.host \"%1\": %2")
                 .arg(QString::fromStdString(config.target.host), e.message());
    return std::nullopt;
  }
  launch.workDir = options.workDir.isEmpty() ? QString::fromStdString(config.target.remote_dir) : options.workDir;
  launch.config = config;
  launch.payloadDir = options.payloadDir;
  return launch;
}

}  // namespace

std::unique_ptr<RemoteJob> JobController::makeRemote(bool keepsCheckpoints) {
  auto job = std::make_unique<RemoteJob>();
  if (m_remote.hostKeyPrompt) job->setHostKeyPrompt(m_remote.hostKeyPrompt);
  if (m_remote.interactivePrompt) job->setInteractivePrompt(m_remote.interactivePrompt);
  if (m_remote.installPrompt) job->setInstallPrompt(m_remote.installPrompt);
  job->setCheckpointsKeptHere(keepsCheckpoints ? m_remote.checkpointsKeptHere : 0);
  job->setGoneAfter(m_remote.goneAfterSeconds);
  job->setTrainerCacheDir(m_remote.trainerCacheDir);
  job->setSlurmQueues(&m_slurmQueues);
  std::erase_if(m_remoteJobs, [](const QPointer<RemoteJob>& gone) { return gone.isNull(); });
  m_remoteJobs.emplace_back(job.get());
  connect(job.get(), &RemoteJob::probed, this,
          [this, remote = job.get()](const HostProbe& probe) { emit hostProbed(remote->spec(), probe); });
  return job;
}

RemoteJob* JobController::adoptRemote(const QString& runDir) {
  std::unique_ptr<RemoteJob> job = makeRemote(true);
  RemoteJob* remote = job.get();
  adopt(runDir, std::move(job));
  return remote;
}

JobController::Started JobController::startOnHosts(const RunConfig& config, const QString& runDir,
                                                   const QString& configPath, const QStringList& extraArgs) {
  // The job's own rules for its hosts (one node each, nnodes their number, a fixed master
  // port), as the Setup page checks them: the command line sets hosts after its load.
  for (const Diagnostic& d : problemsIn(validateConfig(config, ValidationContext{}), {"target", "strategy"}))
    if (d.severity == Severity::Error) return {{}, QString::fromStdString(d.format({}))};
  const std::vector<std::string> hosts = nodeHosts(config.target);
  const auto count = static_cast<std::int64_t>(hosts.size());
  const QString id = QFileInfo(runDir).fileName();
  QVector<RemoteLaunch> launches;
  std::vector<std::unique_ptr<RemoteJob>> nodes;
  QString nodeAddress = QString::fromStdString(config.target.node_address);
  for (int r = 0; r < static_cast<int>(count); ++r) {
    RunConfig nodeConfig = config;
    nodeConfig.target.host = hosts[static_cast<std::size_t>(r)];
    nodeConfig.target.hosts.clear();
    QString error;
    std::optional<RemoteLaunch> launch = remoteLaunch(nodeConfig, m_remote, &error);
    if (!launch) return {{}, tr("node %1: %2").arg(r).arg(error)};
    if (r == 0 && nodeAddress.isEmpty()) nodeAddress = launch->target.host;  // as SSH reaches it
    launch->configBaseDir = QFileInfo(configPath).absolutePath();
    launch->localRunDir = r == 0 ? runDir : MultiHostJob::nodeDir(runDir, r);
    launch->remoteName = r == 0 ? id : QStringLiteral("%1.node-%2").arg(id).arg(r);
    launches << *launch;
    nodes.push_back(makeRemote(r == 0));  // node 0 holds the checkpoints
  }
  for (int r = 0; r < launches.size(); ++r)
    launches[r].extraArgs = extraArgs + QStringList{"--nnodes",      QString::number(count),
                                                    "--node-rank",   QString::number(r),
                                                    "--master-addr", nodeAddress,
                                                    "--master-port", QString::number(config.strategy.master_port)};
  auto job = std::make_unique<MultiHostJob>(std::move(nodes));
  MultiHostJob* multi = job.get();
  adopt(runDir, std::move(job));
  multi->start(launches, static_cast<int>(config.strategy.nproc_per_node));
  return {runDir, {}};
}

JobController::Started JobController::startRemote(const RunConfig& config, const QString& runDir,
                                                  const QString& configPath, const QStringList& extraArgs,
                                                  std::shared_ptr<SlurmArray> array) {
  QString error;
  std::optional<RemoteLaunch> launch = remoteLaunch(config, m_remote, &error);
  if (!launch) return {{}, error};
  launch->configBaseDir = QFileInfo(configPath).absolutePath();
  launch->localRunDir = runDir;
  launch->extraArgs = extraArgs;
  launch->slurmArray = std::move(array);
  adoptRemote(runDir)->start(*launch);
  return {runDir, {}};
}

JobController::Started JobController::watchRemote(const TargetConfig& target, const QString& remoteRunDir) {
  if (!QDir().mkpath(m_runsRoot)) return {{}, tr("Could not make the runs folder %1.").arg(m_runsRoot)};
  RunConfig config;
  config.target = target;
  QString error;
  std::optional<RemoteLaunch> launch = remoteLaunch(config, m_remote, &error);
  if (!launch) return {{}, error};
  // The mirror is named for the folder there (its run id, for an exported run).
  QString name = QFileInfo(QDir::cleanPath(remoteRunDir)).fileName();
  if (name.isEmpty() || name.startsWith('.')) name = QStringLiteral("watched-run");
  const QString dir = freeRunDir(name);
  launch->localRunDir = dir;
  adoptRemote(dir)->watch(*launch, remoteRunDir);
  return {dir, {}};
}

QList<RunConfig> JobController::liveConfigs(const QString& hostSpec) const {
  QList<RunConfig> out;
  for (const auto& [dir, job] : m_jobs) {
    if (!job->isActive()) continue;
    const QStringList specs = job->hosts();  // none: this machine
    if (hostSpec.isEmpty() ? !specs.isEmpty() : !specs.contains(hostSpec)) continue;
    const LoadedConfig loaded = loadConfigFile(RunPaths{dir.toStdString()}.config());
    if (!hasErrors(loaded.problems)) out << loaded.config;
  }
  return out;
}

QString JobController::roomProblem(const RunConfig& config, int localGpus, QSettings& settings) const {
  if (config.target.kind == TargetKind::Local)
    return machineRoomProblem(liveConfigs(), config,
                              Machine{tr("this machine"), thisMachineCpu(), QThread::idealThreadCount(), localGpus});
  const QString spec = QString::fromStdString(config.target.host);
  const std::optional<HostStore::StoredProbe> probe = HostStore::probeFor(settings, spec);
  if (!probe) return {};
  return machineRoomProblem(liveConfigs(spec), config, hostMachine(probe->probe, spec));
}

JobController::Started JobController::continueRun(const QString& runDir, const std::optional<TargetConfig>& target,
                                                  const QStringList& extraArgs) {
  const QString dir = absolute(runDir);
  const QString name = QFileInfo(dir).fileName();
  if (QFileInfo::exists(dir + "/" + kRemoteRecordFile)) {
    if (!target) return {{}, tr("%1 ran on another host: say which host it continues on.").arg(name)};
    return continueOn(dir, *target, {}, extraArgs);
  }
  // A run of this machine resumes only here: never somewhere else's job config run here.
  if (target && isRemote(target->kind))
    return {{},
            tr("%1 ran on this machine: it continues here, not on %2.")
                .arg(name, QString::fromStdString(target->host.empty() ? "a remote target" : target->host))};
  if (const QString why = resume(dir, extraArgs); !why.isEmpty())
    return {{}, tr("%1 cannot be continued: %2.").arg(name, why)};
  return {dir, {}};
}

QString JobController::resume(const QString& runDir, const QStringList& extraArgs) {
  const QString dir = QFileInfo(runDir).absoluteFilePath();
  if (Job* job = jobFor(dir); job && job->isActive()) return tr("the run is still going");
  if (QFileInfo::exists(dir + "/" + kRemoteRecordFile))
    return tr(
        "it ran on another host: Continue on another host… resumes it there, or on any host, from its "
        "checkpoint here");
  const RunInfoReadResult read = readRunInfo(RunPaths{dir.toStdString()});
  if (!read.ok()) return tr("its run.json cannot be read: %1").arg(QString::fromStdString(read.error));
  if (isLive(read.info.status)) return tr("its run.json says it is still %1").arg(toString(read.info.status));
  if (read.info.host != hostName())
    return tr("it ran on %1, not on this machine").arg(QString::fromStdString(read.info.host));
  if (!QFileInfo::exists(QDir(dir).filePath(run_file::kCheckpoints)))
    return tr("it has no checkpoint to continue from (checkpoint.every was 0, or it ended before the first)");
  auto job = std::make_unique<LocalJob>();
  LocalJob* local = job.get();
  adopt(dir, std::move(job));
  local->start(m_trainBinary, QDir(dir).filePath(run_file::kConfig), dir, QStringList{"--resume"} + extraArgs);
  return {};
}

QString JobController::workDirOf(const QString& runDir) {
  return QString::fromStdString(targetOf(runDir).remote_dir);
}

TargetConfig JobController::targetOf(const QString& runDir) {
  RemoteRecord record;
  const bool remote = readRemoteRecord(QFileInfo(runDir).absoluteFilePath(), &record, nullptr);
  if (remote && !record.jobTarget.isEmpty()) return record.jobTargetOr(std::nullopt);
  const LoadedConfig loaded = loadConfigFile(RunPaths{QFileInfo(runDir).absoluteFilePath().toStdString()}.config());
  const std::optional<TargetConfig> target =
      hasErrors(loaded.problems) ? std::nullopt : std::optional<TargetConfig>(loaded.config.target);
  return remote ? record.jobTargetOr(target) : target.value_or(TargetConfig{});
}

JobController::Started JobController::continueOn(const QString& runDir, const TargetConfig& target,
                                                 const QString& workDir, const QStringList& extraArgs) {
  const QString dir = absolute(runDir);
  const QString name = QFileInfo(dir).fileName();
  if (Job* job = jobFor(dir); job && job->isActive())
    return {{}, tr("%1 is still followed here: stop it, or wait until its runtime is said to be gone.").arg(name)};
  RemoteRecord before;
  QString error;
  if (!readRemoteRecord(dir, &before, &error))
    return {{},
            error.isEmpty() ? tr("%1 is not the mirror of a remote run: resume it here instead.").arg(name) : error};
  if (before.watchOnly)
    return {{}, tr("%1 was started outside TrainDeck: it cannot be continued from here.").arg(name)};
  if (const int nodes = MultiHostJob::nodeCountOf(dir); nodes > 1)
    return {{},
            tr("%1 ran on %2 hosts: continuing a job of several hosts is not built yet. Its newest checkpoint is "
               "here (checkpoints/); start the job again with --resume on hosts of your choice.")
                .arg(name)
                .arg(nodes)};
  // Still going, says the mirror: nobody may have followed it as its runtime went; its host
  // is asked first (RemoteJob::continueOnceGone).
  const RunInfoReadResult read = readRunInfo(RunPaths{dir.toStdString()});
  const bool saysLive = read.ok() && isLive(read.info.status);
  if (CheckpointSync::newestCheckpoint(dir).isEmpty())
    return {{}, tr("%1 has no complete checkpoint here to continue from.").arg(name)};
  LoadedConfig loaded = loadConfigFile(RunPaths{dir.toStdString()}.config());
  if (hasErrors(loaded.problems))
    return {{},
            tr("%1's config.yaml cannot be read: %2")
                .arg(name, QString::fromStdString(loaded.problems.front().format(loaded.source)))};
  RunConfig config = loaded.config;
  const QStringList onTheHost = restoreLocalPaths(config, before.localPaths);
  const std::string jobWorkDir = targetOf(dir).remote_dir;  // the job's folder, not a default
  config.target = target;
  config.target.remote_dir = workDir.trimmed().isEmpty() ? jobWorkDir : workDir.trimmed().toStdString();
  std::optional<RemoteLaunch> launch = remoteLaunch(config, m_remote, &error);
  if (!launch) return {{}, error};
  launch->configBaseDir = dir;
  launch->localRunDir = dir;
  launch->extraArgs = QStringList{"--resume"} + extraArgs;
  for (const QString& field : onTheHost)
    launch->notes << tr("%1 was on %2 already (remote:): %3 must have it at the same place.")
                         .arg(field, before.ssh.spec, launch->target.spec);
  RemoteJob* job = adoptRemote(dir);
  if (saysLive)
    job->continueOnceGone(*launch, before, m_remote.batch);
  else
    job->continueOn(*launch);
  return {dir, {}};
}

RemoteFetch* JobController::fetch(const QString& runDir, FetchKind kind, QString* error) {
  const QString dir = QFileInfo(runDir).absoluteFilePath();
  RemoteRecord record;
  if (!readRemoteRecord(dir, &record, error)) {
    if (error->isEmpty()) *error = tr("%1 is not the mirror of a remote run: its files are here already.").arg(dir);
    return nullptr;
  }
  const Job* job = jobFor(dir);
  RemoteHost* host = nullptr;
  for (const QPointer<RemoteJob>& remote : m_remoteJobs)
    if (job != nullptr && remote.data() == job) host = remote->host();
  auto* fetch = new RemoteFetch(dir, record, kind, host,
                                m_remote.batch ? RemoteHost::HostKeyPrompt{} : m_remote.hostKeyPrompt, this);
  if (!m_remote.batch) fetch->setInteractivePrompt(m_remote.interactivePrompt);
  connect(fetch, &RemoteFetch::finished, fetch, &QObject::deleteLater);
  fetch->start();
  return fetch;
}

int JobController::attachRunning() {
  int found = 0;
  const QFileInfoList dirs = QDir(m_runsRoot).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot);
  for (const QFileInfo& dir : dirs) {
    const RunInfoReadResult read = readRunInfo(RunPaths{dir.absoluteFilePath().toStdString()});
    // A mirror without run.json yet: launched while the app closed, before the run wrote one.
    const bool mirror = QFileInfo::exists(dir.absoluteFilePath() + "/" + kRemoteRecordFile);
    if (read.ok() ? !isLive(read.info.status) : !mirror) continue;
    if (read.ok() && read.info.host != hostName() && !mirror) continue;
    if (attach(dir.absoluteFilePath()).isEmpty()) ++found;
  }
  return found;
}

QString JobController::attach(const QString& runDir) {
  const QString dir = absolute(runDir);
  if (Job* known = jobFor(dir); known && known->isActive()) return {};
  if (const int nodes = MultiHostJob::nodeCountOf(dir); nodes > 1) {  // a job on several hosts
    std::vector<std::unique_ptr<RemoteJob>> jobs;
    for (int r = 0; r < nodes; ++r) jobs.push_back(makeRemote(r == 0));
    auto job = std::make_unique<MultiHostJob>(std::move(jobs));
    const QString why = job->attach(dir, m_remote.batch);
    if (!why.isEmpty()) return why;
    adopt(dir, std::move(job));
    return {};
  }
  if (QFileInfo::exists(dir + "/" + kRemoteRecordFile)) {  // the mirror of a run on a host
    std::unique_ptr<RemoteJob> job = makeRemote(true);  // the options a start gives it
    const QString why = job->attach(dir, m_remote.batch);
    if (!why.isEmpty()) return why;
    adopt(dir, std::move(job));
    return {};
  }
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
  connect(raw, &Job::finished, this, [this, runDir](int exitCode) {
    emit jobLinkChanged(runDir, {});  // an ended run has no link to speak of: no stale note
    emit jobFinished(runDir, exitCode);
  });
  connect(raw, &Job::failedToStart, this,
          [this, runDir](const QString& reason) { emit jobFailedToStart(runDir, reason); });
  connect(raw, &Job::linkTextChanged, this, [this, runDir](const QString& text) { emit jobLinkChanged(runDir, text); });
  connect(raw, &Job::placeTextChanged, this, [this, runDir, raw] { emit jobLinkChanged(runDir, raw->linkText()); });
  m_jobs[runDir] = std::move(job);  // an ended job of the same run (a resume) is replaced
}

}  // namespace traindeck
