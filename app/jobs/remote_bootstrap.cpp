// Remote paths: the work folder is made absolute by the first step, and everything after it
// lives there: traindeck-remote-<hash>.sh, src/<hash>/, build/<hash>-<libtorch>/, data/<sha256>/
// and runs/<run-id>/. A continued run's folder there is seeded with the mirror's growing files
// (so that the mirror's offsets hold there too) and its newest checkpoint, COMPLETE last.
#include "remote_bootstrap.h"

#include <algorithm>

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryFile>
#include <QTimer>

#include "checkpoint_sync.h"
#include "config/config_io.h"
#include "remote_helper.h"
#include "runlog/metrics_writer.h"
#include "runlog/run_paths.h"
#include "slurm_array.h"
#include "trainer_cache.h"

namespace traindeck {

namespace {

QString readText(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()).trimmed() : QString();
}

// A build folder name for this LibTorch: "pip-2.6.0-cu124", "system".
QString libtorchKey(const HostProbe& probe) {
  QString key = probe.libtorchChoice();
  if (key == "pip") key += "-" + probe.torch + (probe.torchCuda.isEmpty() ? "" : "-cu" + probe.torchCuda);
  return key.replace(QRegularExpression("[^A-Za-z0-9._+-]"), "_");
}

}  // namespace

RemoteBootstrap::RemoteBootstrap(RemoteHost* host, RemoteLaunch* launch, RemoteRecord* record, RunMirror* mirror,
                                 Options options, QObject* parent)
    : QObject(parent),
      m_host(host),
      m_launch(launch),
      m_record(record),
      m_mirror(mirror),
      m_options(std::move(options)) {
  connect(m_host, &RemoteHost::readyChanged, this, [this](bool ready) {
    if (!ready || !m_active) return;
    if (m_retryStep && m_currentStep) {
      m_retryStep = false;
      m_stepRun.start();  // stepFailed counts from here
      m_currentStep();
    }
  });
  if (m_launch->slurmArray && m_launch->slurm() && m_options.watchDir.isEmpty()) {
    m_array = m_launch->slurmArray;
    m_array->enlist(this);
  }
}

// Held here, not read through m_launch: a bootstrap deleted later (deleteLater) may outlive its
// job's launch.
RemoteBootstrap::~RemoteBootstrap() {
  if (m_array) m_array->leave(this);
}

void RemoteBootstrap::halt() {
  m_active = false;
  if (m_array) m_array->leave(this);
}

QString RemoteBootstrap::prepare() {
  m_sourcesHash = readText(QDir(m_launch->payloadDir).filePath("trainer-sources.sha256")).left(64);
  if (m_sourcesHash.size() != 64 || !QFileInfo::exists(QDir(m_launch->payloadDir).filePath("trainer-sources.tar")))
    return tr("The trainer's sources for remote builds are not in %1: this app was built without them.")
        .arg(m_launch->payloadDir);
  return {};
}

QVector<RemoteBootstrap::Step> RemoteBootstrap::stepsFor() const {
  using B = RemoteBootstrap;
  if (!m_options.watchDir.isEmpty()) return {&B::stepWorkFolder, &B::stepHelper, &B::stepWatchFolder};
  const bool slurm = m_launch->slurm().has_value();
  QVector<Step> steps{&B::stepWorkFolder, &B::stepHelper, &B::stepProbe};
  if (slurm) steps << &B::stepPartitions;
  steps << &B::stepTools << &B::stepSources << &B::stepBuild << &B::stepData;
  if (m_options.continuing) steps << &B::stepSeed;
  if (m_options.holdBeforeLaunch) steps << &B::stepHold;
  steps << (slurm ? &B::stepSubmit : &B::stepLaunch);
  return steps;
}

void RemoteBootstrap::start() {
  if (m_launch->slurm() && m_launch->slurm()->buildInJob) m_compile = &RemoteBootstrap::stepCompileAsJob;
  runTable(stepsFor());
}

void RemoteBootstrap::findLaunched() {
  m_currentStepName = QStringLiteral("launch");
  runTable({&RemoteBootstrap::stepLaunched});
}

void RemoteBootstrap::runTable(QVector<Step> steps) {
  m_steps = std::move(steps);
  m_nextRow = 0;
  if (m_host->isReady()) return next();
  connect(m_host, &RemoteHost::readyChanged, this, [this](bool ready) {
    if (ready && m_active && !m_currentStep) next();
  });
}

void RemoteBootstrap::next() {
  if (!m_active || m_nextRow >= m_steps.size()) return;
  const Step step = m_steps[m_nextRow++];
  runStep([this, step] { (this->*step)(); });
}

QString RemoteBootstrap::cancel() {
  if (m_currentStepName == QLatin1String("launch")) {
    m_stopRequested = true;  // the trainer may be starting there: stopped as soon as its pid is known
    return {};
  }
  m_active = false;
  // What runs there now (a build, an upload) ends by itself; its result stays cached for next time.
  return tr("Stopped before the run started (during the %1 step).").arg(m_currentStepName);
}

RemoteHelper RemoteBootstrap::helper() {
  return RemoteHelper(m_host, m_record->helper, this);
}

QString RemoteBootstrap::remoteName() const {
  return m_launch->remoteName.isEmpty() ? QFileInfo(m_launch->localRunDir).fileName() : m_launch->remoteName;
}

bool RemoteBootstrap::arrived(const HelperStatus& answer) {
  if (!m_active) return false;
  if (!answer.linkFailure.isEmpty()) {
    stepFailed(answer.linkFailure);  // again once the link is back
    return false;
  }
  if (answer.helperMissing) {
    fail(tr("The work folder %1 on %2 went while the run was being started.")
             .arg(m_record->workDir, m_launch->target.spec));
    return false;
  }
  return true;
}

RemoteHost::LineHandler RemoteBootstrap::streamOutput() {
  return [this](const QString& line) { addOutput(line); };
}

void RemoteBootstrap::upload(const QString& local, const QString& remote, UploadDone done) {
  if (!m_active) return;
  m_host->upload(
      local, remote, this,
      [this, done = std::move(done)](const TransferResult&, const QString& failure) {
        if (!m_active) return;
        if (!failure.isEmpty()) return stepFailed(failure);
        done();
      },
      [this](qint64 sent, qint64 total) { emit transferProgress(sent, total); });
}

void RemoteBootstrap::beginStep(const QString& name, const QString& detail) {
  m_currentStepName = name;
  emit stepStarted(name, detail);
}

void RemoteBootstrap::runStep(std::function<void()> step) {
  if (!m_active) return;
  m_currentStep = std::move(step);
  m_lastFailure.clear();  // a new step: its failures are counted afresh
  m_sameFailures = 0;
  m_stepRun.start();
  m_currentStep();
}

void RemoteBootstrap::stepFailed(const QString& message) {
  // The state change that follows a lost link is queued right behind this failure: look once it
  // has arrived. A step cut by the link runs again when the link is back (every step can: the
  // launch answers what it started the first time); any other failure ends the start. A step
  // that fails again at once, the same way, each time it is run again is failing whatever the
  // link does (the host drops the connection at that point): kSameFailureLimit of those in a row
  // end the start too, instead of a retry every backoff for ever. One that had run a while before
  // the link went was cut by the network, and starts the count again.
  QTimer::singleShot(0, this, [this, message] {
    if (!m_active) return;
    if (m_host->state() == LinkState::Reconnecting) {
      const bool again = message == m_lastFailure && m_stepRun.isValid() && m_stepRun.elapsed() < kSameFailureMs;
      m_sameFailures = again ? m_sameFailures + 1 : 1;
      m_lastFailure = message;
      if (m_sameFailures >= kSameFailureLimit)
        return fail(tr("%1 failed %2 times: %3").arg(m_currentStepName).arg(m_sameFailures).arg(message));
      addOutput(tr("The link to %1 was lost; the step runs again once it is back.").arg(m_launch->target.spec));
      m_retryStep = true;
      return;
    }
    fail(message);
  });
}

void RemoteBootstrap::fail(const QString& sentence) {
  if (!m_active) return;
  m_active = false;
  if (m_array) m_array->leave(this);
  emit failed(sentence);
}

void RemoteBootstrap::finish() {
  m_active = false;
  emit launched(m_stopRequested);
}

void RemoteBootstrap::stepWorkFolder() {
  beginStep(QStringLiteral("work folder"), m_launch->workDir);
  RemoteHelper::makeWorkFolder(m_host, m_launch->workDir, this, [this](const FolderAnswer& a) {
    if (!arrived(a)) return;
    if (a.path.isEmpty())
      return fail(
          tr("Could not make the work folder %1 on %2: %3").arg(m_launch->workDir, m_launch->target.spec, a.why()));
    m_record->workDir = a.path;
    m_record->helper = a.path + "/traindeck-remote-" + m_sourcesHash.left(12) + ".sh";
    next();
  });
}

void RemoteBootstrap::stepHelper() {
  upload(QDir(m_launch->payloadDir).filePath("traindeck-remote.sh"), m_record->helper, [this] { next(); });
}

void RemoteBootstrap::stepWatchFolder() {
  beginStep(QStringLiteral("watch"), m_options.watchDir);
  helper().watch(m_options.watchDir, [this](const FolderAnswer& a) {
    if (!arrived(a)) return;
    if (a.path.isEmpty())
      return fail(tr("%1 on %2 is not a run folder (no run.json or metrics.jsonl there yet).")
                      .arg(m_options.watchDir, m_launch->target.spec));
    m_record->remoteRunDir = a.path;
    m_record->watchOnly = true;
    if (const QString why = m_options.saveRecord(); !why.isEmpty()) return fail(why);
    addOutput(tr("Watching %1 on %2 (started there, not by TrainDeck)").arg(a.path, m_launch->target.spec));
    finish();
  });
}

void RemoteBootstrap::stepProbe() {
  probeHost([this] { next(); });
}

void RemoteBootstrap::probeHost(std::function<void()> then) {
  beginStep(QStringLiteral("probe"), QString());
  helper().probe(m_record->workDir, [this, then](const ProbeAnswer& a) {
    if (!arrived(a)) return;
    m_probe = a.probe;
    if (a.exitStatus != 0 || !m_probe.complete)
      return fail(tr("Could not learn what %1 has: %2").arg(m_launch->target.spec, a.why()));
    m_record->bootId = m_probe.bootId;
    addOutput(tr("%1: %2").arg(m_launch->target.spec, m_probe.summary()));
    emit probed(m_probe);
    then();
  });
}

void RemoteBootstrap::stepTools() {
  const QStringList missing = m_probe.missingForBuild();
  if (missing.isEmpty()) return next();
  const QStringList packages = m_probe.packagesToInstall();
  if (packages.isEmpty() || m_installTried) return fail(missing.join(' '));
  const QString question = tr("%1 lacks what building the trainer needs: %2\n\nInstall %3 there now, as "
                              "root, with apt-get?")
                               .arg(m_launch->target.spec, missing.join(' '), packages.join(' '));
  // Asked outside the probe's answer handler: a dialog runs its own event loop.
  QTimer::singleShot(0, this, [this, missing, packages, question] {
    if (!m_active) return;
    if (!m_options.installPrompt || !m_options.installPrompt(question))
      return fail(missing.join(' ') + tr(" (The account there is root: TrainDeck can install %1 for you "
                                         "when asked, or with traindeck --launch … --install-missing.)")
                                          .arg(packages.join(' ')));
    runStep([this, packages] { stepInstall(packages); });
  });
}

void RemoteBootstrap::stepInstall(const QStringList& packages) {
  beginStep(QStringLiteral("install"), packages.join(' '));
  m_installTried = true;
  helper().install(
      packages,
      [this](const MadeAnswer& a) {
        if (!arrived(a)) return;
        if (!a.made)
          return fail(tr("Installing on %1 failed: %2")
                          .arg(m_launch->target.spec, a.error.isEmpty() ? tr("see the output") : a.error));
        addOutput(tr("Installed %1 on %2.").arg(a.value, m_launch->target.spec));
        // Once more, to see what it has now.
        runStep([this] { probeHost([this] { stepTools(); }); });
      },
      streamOutput());
}

void RemoteBootstrap::stepSources() {
  beginStep(QStringLiteral("sources"), m_sourcesHash.left(12));
  const QString src = m_record->workDir + "/src/" + m_sourcesHash;
  helper().have(src + "/.done", [this, src](const YesNoAnswer& there) {
    if (!arrived(there)) return;
    if (there.yes) {
      addOutput(tr("The trainer's sources %1 are there already.").arg(m_sourcesHash.left(12)));
      return next();
    }
    const QString tarball = src + "." + remoteName() + ".tar";  // this start's: another may unpack and remove its own
    helper().mkdirs({m_record->workDir + "/src"}, [this, src, tarball](const HelperStatus& made) {
      if (!arrived(made)) return;
      upload(QDir(m_launch->payloadDir).filePath("trainer-sources.tar"), tarball, [this, src, tarball] {
        helper().unpack(tarball, src, [this, tarball](const HelperStatus& unpacked) {
          if (!arrived(unpacked)) return;
          if (unpacked.exitStatus != 0) return fail(unpacked.why());
          helper().remove({tarball}, [this](const HelperStatus& removed) {
            if (arrived(removed)) next();
          });
        });
      });
    });
  });
}

void RemoteBootstrap::stepBuild() {
  const QString key = m_sourcesHash.left(16) + "-" + libtorchKey(m_probe);
  m_buildDir = m_record->workDir + "/build/" + key;
  beginStep(QStringLiteral("build"), key);
  m_record->trainBinary = m_buildDir + "/bin/traindeck-train";
  helper().built(m_buildDir, [this](const YesNoAnswer& built) {
    if (!arrived(built)) return;
    if (built.yes) {
      addOutput(tr("The trainer for this LibTorch is built there already."));
      return afterBuild();
    }
    const QString home = TrainerCache(m_options.trainerCacheDir).binaryFor(trainerSignature(m_probe, m_sourcesHash));
    if (!home.isEmpty()) return runStep([this, home] { stepUploadTrainer(home); });
    runStep([this] { (this->*m_compile)(); });
  });
}

void RemoteBootstrap::stepUploadTrainer(const QString& binary) {
  addOutput(tr("A trainer built on a host like this one is kept here: uploading it instead of building."));
  helper().mkdirs({m_buildDir + "/bin"}, [this, binary](const HelperStatus& made) {
    if (!arrived(made)) return;
    const QString partial = m_record->trainBinary + ".partial-" + remoteName();
    upload(binary, partial, [this, partial] {
      helper().installTrainer(m_buildDir, partial, [this](const MadeAnswer& a) {
        if (!arrived(a)) return;
        if (a.made) {
          addOutput(tr("The trainer brought here runs on %1 (%2): nothing to build.")
                        .arg(m_launch->target.spec, a.keys.value("version", tr("its version"))));
          return afterBuild();
        }
        addOutput(tr("The trainer brought here does not run on %1 (%2): building it there.")
                      .arg(m_launch->target.spec, a.why()));
        runStep([this] { (this->*m_compile)(); });
      });
    });
  });
}

void RemoteBootstrap::stepCompile() {
  helper().build(m_record->workDir + "/src/" + m_sourcesHash, m_buildDir, m_probe.libtorchChoice(),
                 compiled(tr("Building the trainer on %1 failed: %2")), streamOutput());
}

RemoteHelper::Done<MadeAnswer> RemoteBootstrap::compiled(const QString& failedWords) {
  return [this, failedWords](const MadeAnswer& a) {
    if (!arrived(a)) return;
    if (!a.made)
      return fail(failedWords.arg(m_launch->target.spec, a.error.isEmpty() ? tr("see the build output") : a.error));
    if (a.cached) addOutput(tr("The trainer for this LibTorch is built there already."));
    afterBuild();
  };
}

void RemoteBootstrap::afterBuild() {
  bringTrainerHome();
  RunConfig config = m_launch->config;
  const UploadPlan plan = planUploads(config, m_launch->configBaseDir, m_record->workDir);
  if (!plan.error.isEmpty()) return fail(plan.error);
  m_launch->config = config;
  m_uploads = plan.uploads;
  m_record->localPaths = plan.localPaths;
  next();
}

void RemoteBootstrap::bringTrainerHome() {
  // In the background, over the same connection: the run does not wait for it, its end does.
  const TrainerSignature signature = trainerSignature(m_probe, m_sourcesHash);
  const TrainerCache cache(m_options.trainerCacheDir);
  if (m_trainerDownloadId >= 0 || !cache.binaryFor(signature).isEmpty()) return;
  m_trainerDownloadId = m_host->download(
      m_record->trainBinary, cache.partialFor(signature, remoteName()), this,
      [this](const TransferResult& result, const QString& failure) {
        m_trainerDownloadId = -1;
        if (!failure.isEmpty())  // not needed for this run: tried again by the next start
          addOutput(tr("The trainer built on %1 was not brought here: %2").arg(m_launch->target.spec, failure));
        else if (const QString why = TrainerCache(m_options.trainerCacheDir)
                                         .keep(trainerSignature(m_probe, m_sourcesHash), remoteName());
                 why.isEmpty())
          addOutput(tr("The trainer built on %1 is kept here (%2 MB) for hosts like it: they get it uploaded "
                       "instead of building it.")
                        .arg(m_launch->target.spec)
                        .arg(static_cast<double>(result.bytes) / 1e6, 0, 'f', 1));
        else
          addOutput(tr("The trainer built on %1 could not be kept here: %2").arg(m_launch->target.spec, why));
        emit trainerHome();
      });
}

void RemoteBootstrap::stepDataAt(int index) {
  if (index >= m_uploads.size()) return next();
  const PlannedUpload& up = m_uploads[index];
  beginStep(QStringLiteral("data"), up.field);
  helper().have(up.remoteDir + "/.done", [this, index](const YesNoAnswer& there) {
    if (!arrived(there)) return;
    const PlannedUpload& up = m_uploads[index];
    if (there.yes) {
      addOutput(tr("%1 is on the host already (%2).").arg(up.field, up.key.left(12)));
      return runStep([this, index] { stepDataAt(index + 1); });
    }
    QStringList dirs;
    for (const QString& file : up.files) dirs << QFileInfo(partialDataDir(up) + "/" + file).path();
    dirs.removeDuplicates();
    helper().mkdirs(dirs, [this, index](const HelperStatus& made) {
      if (!arrived(made)) return;
      if (!made.ok())
        return fail(tr("Could not make %1 on the host: %2").arg(partialDataDir(m_uploads[index]), made.why()));
      stepDataFile(index, 0);
    });
  });
}

QString RemoteBootstrap::partialDataDir(const PlannedUpload& up) const {
  // This run's own, then renamed: a cut upload is never taken for a complete one, and two starts
  // uploading the same data at once do not write into one folder.
  return up.remoteDir + ".partial-" + remoteName();
}

void RemoteBootstrap::stepDataFile(int index, int file) {
  const PlannedUpload& up = m_uploads[index];
  if (file < up.files.size()) {
    const QString local = QDir(QFileInfo(up.localPath).absolutePath()).filePath(up.files[file]);
    addOutput(tr("uploading %1").arg(up.files[file]));
    upload(local, partialDataDir(up) + "/" + up.files[file], [this, index, file] { stepDataFile(index, file + 1); });
    return;
  }
  // Complete, then renamed into place, unless another start got there first: the helper's
  // install-data keeps the rules (and says why).
  helper().installData(partialDataDir(up), up.remoteDir, [this, index](const HelperStatus& a) {
    if (!arrived(a)) return;
    if (!a.ok()) return fail(a.why());
    runStep([this, index] { stepDataAt(index + 1); });
  });
}

void RemoteBootstrap::stepSeed() {
  const QString checkpoint = CheckpointSync::newestCheckpoint(runDir());
  if (checkpoint.isEmpty())
    return fail(tr("%1 has no complete checkpoint here to continue from.").arg(QFileInfo(runDir()).fileName()));
  beginStep(QStringLiteral("seed"), checkpoint);
  m_record->remoteRunDir = m_record->workDir + "/runs/" + remoteName();
  helper().seed(m_record->remoteRunDir, [this, checkpoint](const SeedAnswer& a) {
    if (!arrived(a)) return;
    if (!a.seeded) return fail(tr("Could not prepare the run's folder on %1: %2").arg(m_launch->target.spec, a.why()));
    if (!a.movedAside.isEmpty())
      addOutput(
          tr("An earlier folder of this run on %1 was moved aside to %2.").arg(m_launch->target.spec, a.movedAside));
    markMove(checkpoint);
    for (const QString& note : m_launch->notes) addOutput(note);
    // The growing files as the mirror has them (its offsets then hold there), then the checkpoint.
    const QDir dir(runDir());
    m_seedFiles = m_mirror->growingFiles();
    m_seedFiles.erase(std::remove_if(m_seedFiles.begin(), m_seedFiles.end(),
                                     [&dir](const QString& f) { return !QFileInfo::exists(dir.filePath(f)); }),
                      m_seedFiles.end());
    const QString folder = QString(run_file::kCheckpoints) + '/' + checkpoint;
    QStringList subdirs{m_record->remoteRunDir + "/" + folder};
    QDirIterator it(dir.filePath(folder), QDir::Files, QDirIterator::Subdirectories);
    QStringList files;
    while (it.hasNext()) {
      const QString relative = dir.relativeFilePath(it.next());
      if (QFileInfo(relative).fileName() != run_file::kCheckpointComplete) files << relative;
      subdirs << m_record->remoteRunDir + "/" + QFileInfo(relative).path();
    }
    files.sort();
    m_seedFiles << files << folder + '/' + run_file::kCheckpointComplete;
    subdirs.removeDuplicates();
    helper().mkdirs(subdirs, [this](const HelperStatus& made) {
      if (!arrived(made)) return;
      if (!made.ok())
        return fail(tr("Could not make the run's folders on %1: %2").arg(m_launch->target.spec, made.why()));
      stepSeedFile(0);
    });
  });
}

void RemoteBootstrap::stepSeedFile(int index) {
  if (index >= m_seedFiles.size()) return next();
  const QString& name = m_seedFiles[index];
  upload(QDir(runDir()).filePath(name), m_record->remoteRunDir + "/" + name,
         [this, index] { stepSeedFile(index + 1); });
}

void RemoteBootstrap::markMove(const QString& checkpoint) {
  // In the run's own record, before it is uploaded, so that the copy there and the mirror agree:
  // an event where the curve moved from one host to the next.
  const qint64 step = CheckpointSync::stepOf(checkpoint);
  const QString message = m_options.continuedFrom.isEmpty() || m_options.continuedFrom == m_launch->target.spec
                              ? tr("continued on %1 from checkpoint step %2").arg(m_launch->target.spec).arg(step)
                              : tr("moved from %1 to %2: continued from checkpoint step %3")
                                    .arg(m_options.continuedFrom, m_launch->target.spec)
                                    .arg(step);
  const QString metrics = QDir(runDir()).filePath(run_file::kMetrics);
  QFile existing(metrics);
  if (existing.open(QIODevice::ReadOnly) && existing.size() > 4096) existing.seek(existing.size() - 4096);
  if (existing.isOpen() && existing.readAll().contains(message.toUtf8())) return;  // this start said it already
  try {
    MetricsWriter writer(metrics.toStdString());
    JsonWriter record = MetricsWriter::record(metrics_kind::kEvent);
    record.field(metrics_key::kLevel, std::string("info"))
        .field(metrics_key::kRank, 0)
        .field(metrics_key::kMsg, message.toStdString())
        .field(metrics_key::kStep, static_cast<std::int64_t>(step));
    writer.write(record);
  } catch (const std::exception& e) {
    addOutput(tr("The move could not be marked in metrics.jsonl: %1").arg(QString::fromUtf8(e.what())));
  }
  addOutput(message);
}

void RemoteBootstrap::stepHold() {
  beginStep(QStringLiteral("waiting"), tr("for the other hosts"));
  emit readyToLaunch();
}

void RemoteBootstrap::releaseLaunch() {
  if (!m_active || m_currentStepName != QLatin1String("waiting")) return;
  next();
}

void RemoteBootstrap::uploadJobCopy(std::function<void(const QString& remoteConfig)> then) {
  beginStep(QStringLiteral("launch"), m_options.continuing ? tr("resumed") : QString());
  const QString id = remoteName();
  m_record->remoteRunDir = m_record->workDir + "/runs/" + id;
  m_record->jobTarget = jobTargetYaml(m_launch->config.target);
  // The remote copy of the job: every key resolved, paths rewritten for the host, which is where
  // it runs (its target is that machine itself).
  RunConfig hostConfig = m_launch->config;
  hostConfig.target = TargetConfig{};
  QTemporaryFile config;
  const QByteArray yaml = QByteArray::fromStdString(saveConfigText(hostConfig));
  if (!config.open() || config.write(yaml) != yaml.size() || !config.flush())
    return fail(tr("Could not write the job's remote copy: %1").arg(config.errorString()));
  const QString remoteConfig = m_record->workDir + "/runs/" + id + ".job.yaml";
  const QString localConfig = config.fileName();
  config.setAutoRemove(false);
  // Recorded before it is launched (pid 0: launching): an app closed before the answer came
  // back finds the run again by asking the host what it started (attach).
  if (const QString why = m_options.saveRecord(); !why.isEmpty()) return fail(why);
  helper().mkdirs({m_record->workDir + "/runs"}, [this, localConfig, remoteConfig, then](const HelperStatus& made) {
    if (!arrived(made)) return;
    upload(localConfig, remoteConfig, [localConfig, remoteConfig, then] {
      QFile::remove(localConfig);
      then(remoteConfig);
    });
  });
}

void RemoteBootstrap::stepLaunch() {
  uploadJobCopy([this](const QString& remoteConfig) {
    const auto started = [this](const LaunchAnswer& a) {
      if (!arrived(a)) return;
      if (!a.started()) return fail(tr("The trainer did not start on %1: %2").arg(m_launch->target.spec, a.why()));
      m_record->pid = a.pid;
      m_record->startTime = a.startTime;
      m_record->bootId = a.bootId;
      if (const QString why = m_options.saveRecord(); !why.isEmpty()) return fail(why);
      addOutput(tr("Started on %1 as pid %2 in %3")
                    .arg(m_launch->target.spec)
                    .arg(m_record->pid)
                    .arg(m_record->remoteRunDir));
      finish();
    };
    helper().launch(m_record->trainBinary, remoteConfig, m_record->remoteRunDir, m_launch->extraArgs, started);
  });
}

void RemoteBootstrap::stepLaunched() {
  beginStep(QStringLiteral("launch"), tr("asking what was started"));
  helper().launched(m_record->remoteRunDir, [this](const LaunchAnswer& a) {
    if (!arrived(a)) return;
    if (a.exitStatus != 0) return fail(tr("Could not ask %1 about the run: %2").arg(m_launch->target.spec, a.why()));
    if (a.pid <= 0)
      return fail(tr("The run was never started on %1: TrainDeck closed before the launch reached it. Start it "
                     "again (what was built or uploaded there is kept).")
                      .arg(m_launch->target.spec));
    m_record->pid = a.pid;
    m_record->startTime = a.startTime;
    m_record->bootId = a.bootId;
    if (const QString why = m_options.saveRecord(); !why.isEmpty()) return fail(why);
    addOutput(tr("Found the run on %1 as pid %2").arg(m_launch->target.spec).arg(m_record->pid));
    finish();
  });
}

}  // namespace traindeck
