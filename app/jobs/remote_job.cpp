// The bootstrap is a chain of steps, each one remote operation whose answer starts the next;
// any failure ends the chain with a sentence and leaves the mirror's run.json saying why.
// Remote paths: the work folder is made absolute by the first step, and everything after it
// lives there: traindeck-remote-<hash>.sh, src/<hash>/, build/<hash>-<libtorch>/, data/<sha256>/
// and runs/<run-id>/. A continued run's folder there is seeded with the mirror's growing files
// (so that the mirror's offsets hold there too) and its newest checkpoint, COMPLETE last.
#include "remote_job.h"

#include <algorithm>

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSaveFile>
#include <QTemporaryFile>

#include "config/config_io.h"
#include "runlog/metrics_writer.h"
#include "runlog/run_directory.h"
#include "shell_quote.h"
#include "supervisor_log.h"
#include "trainer_cache.h"

namespace traindeck {

namespace {

constexpr const char* kWorkFolderGone = "work-folder-gone";

// The work folder as a shell word: "~/x" becomes "$HOME"/'x' (the remote shell expands it).
QString shellPath(const QString& path) {
  if (path == "~") return QStringLiteral("\"$HOME\"");
  if (path.startsWith("~/")) return QStringLiteral("\"$HOME\"/") + shellQuote(path.mid(2));
  return shellQuote(path);
}

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

RemoteJob::RemoteJob(QObject* parent) : Job(parent) {
  m_pollTimer.setInterval(kPollMs);
  connect(&m_pollTimer, &QTimer::timeout, this, &RemoteJob::poll);
  m_goneTimer.setSingleShot(true);
  connect(&m_goneTimer, &QTimer::timeout, this, [this] {
    if (m_state != State::Running && m_state != State::Stopping) return;
    const int seconds = m_goneAfterMs / 1000;
    runtimeGone(seconds >= 120 ? tr("%1 has been unreachable for %2 minutes").arg(m_launch.spec).arg(seconds / 60)
                               : tr("%1 has been unreachable for %2 s").arg(m_launch.spec).arg(seconds));
  });
}

RemoteJob::~RemoteJob() = default;

void RemoteJob::setState(State state) {
  if (m_state == state) return;
  m_state = state;
  emit stateChanged(state);
}

void RemoteJob::setLinkText(const QString& text) {
  if (m_linkText == text) return;
  m_linkText = text;
  emit linkTextChanged(text);
}

void RemoteJob::addOutput(const QString& text) {
  m_output.push_back(text);
  while (m_output.size() > static_cast<std::size_t>(kOutputLines)) m_output.pop_front();
  emit outputLine(text);
}

QStringList RemoteJob::recentOutput() {
  return QStringList(m_output.begin(), m_output.end()) + supervisorLogTail(runDir(), 50);
}

void RemoteJob::makeHost(const SshTarget& target) {
  m_host = std::make_unique<RemoteHost>(target);
  if (m_hostKeyPrompt) m_host->setHostKeyPrompt(m_hostKeyPrompt);
  connect(m_host.get(), &RemoteHost::execOutputAvailable, this, [this](int id, const QByteArray& data, bool isStderr) {
    auto it = m_execs.find(id);
    if (it == m_execs.end()) return;
    PendingExec& e = it->second;
    (isStderr ? e.err : e.out) += data;
    if (!e.stream) return;
    e.lines.feed(std::string_view(data.constData(), static_cast<std::size_t>(data.size())),
                 [this](std::string_view line, bool) {
                   addOutput(QString::fromUtf8(line.data(), static_cast<qsizetype>(line.size())));
                 });
  });
  connect(m_host.get(), &RemoteHost::execFinished, this, [this](int id, int status) {
    auto node = m_execs.extract(id);
    if (node.empty()) return;
    node.mapped().done(status, node.mapped().out, node.mapped().err);
  });
  connect(m_host.get(), &RemoteHost::transferProgressChanged, this, [this](int id, qint64 done, qint64 total) {
    if (m_uploadsInFlight.count(id) > 0) emit transferProgress(done, total);
  });
  connect(m_host.get(), &RemoteHost::transferFinished, this, [this](int id, const TransferResult& result) {
    if (id == m_trainerDownloadId) {
      m_trainerDownloadId = -1;
      const QString why = TrainerCache(m_trainerCacheDir).keep(trainerSignature(m_probe, m_sourcesHash), remoteName());
      addOutput(why.isEmpty() ? tr("The trainer built on %1 is kept here (%2 MB) for hosts like it: they get it "
                                   "uploaded instead of building it.")
                                    .arg(m_launch.spec)
                                    .arg(static_cast<double>(result.bytes) / 1e6, 0, 'f', 1)
                              : tr("The trainer built on %1 could not be kept here: %2").arg(m_launch.spec, why));
      if (m_state == State::Running || m_state == State::Stopping) poll();
      return;
    }
    auto node = m_uploadsInFlight.extract(id);
    if (!node.empty()) node.mapped()();
  });
  connect(m_host.get(), &RemoteHost::operationFailed, this, [this](int id, const QString& message) {
    if (id == m_pollId) m_pollInFlight = false;  // the next poll asks again from the same offsets
    if (id == m_trainerDownloadId) {             // not needed for this run: tried again by the next start
      m_trainerDownloadId = -1;
      addOutput(tr("The trainer built on %1 was not brought here: %2").arg(m_launch.spec, message));
      if (m_state == State::Running || m_state == State::Stopping) poll();
      return;
    }
    const bool upload = m_uploadsInFlight.erase(id) > 0;
    auto node = m_execs.extract(id);
    if (!upload && node.empty()) return;
    if (m_state == State::Starting) return stepFailed(message);
    if (!node.empty() && id != m_pollId) node.mapped().done(-1, {}, message.toUtf8());  // a Stop or Kill
  });
  connect(m_host.get(), &RemoteHost::connectionFailed, this, [this](const QString& message) {
    if (m_state == State::Finished) return;
    if (m_state == State::Starting) return fail(message);
    // Following a run (after a reconnect gave up, or re-attached while the host is away): it may
    // come back, and a link never ends the run; try again now and then.
    setLinkText(tr("host unreachable since %1: %2").arg(m_unreachableSince.toString("HH:mm"), message));
    QTimer::singleShot(kRetryConnectMs, this, [this] {
      if (m_host && (m_state == State::Running || m_state == State::Stopping) && !m_host->isReady())
        m_host->connectToHost();
    });
  });
  connect(m_host.get(), &RemoteHost::stateChanged, this, [this](LinkState state) {
    if (state != LinkState::Ready && !m_unreachableSince.isValid()) m_unreachableSince = QDateTime::currentDateTime();
    if (state == LinkState::Ready) m_unreachableSince = {};
    if (state == LinkState::Ready)
      m_goneTimer.stop();
    else if (m_goneAfterMs > 0 && !m_goneTimer.isActive() && (m_state == State::Running || m_state == State::Stopping))
      m_goneTimer.start(m_goneAfterMs);
    if (m_state == State::Running || m_state == State::Stopping) {
      if (state == LinkState::Ready)
        setLinkText(tr("following"));
      else if (state == LinkState::Reconnecting)
        setLinkText(tr("reconnecting (link lost at %1)").arg(m_unreachableSince.toString("HH:mm:ss")));
    }
  });
}

int RemoteJob::exec(const QString& command, ExecDone done, bool streamOutput) {
  if (!m_host) return -1;  // the job ended meanwhile (a step's signal cancelled it): nothing more runs
  const int id = m_host->exec(command);
  m_execs.emplace(id, PendingExec{std::move(done), streamOutput, {}, {}, LineSplitter(kMaxOutputLineBytes)});
  return id;
}

void RemoteJob::beginStep(const QString& name, const QString& detail) {
  if (!m_clock.isValid()) m_clock.start();
  if (!m_steps.isEmpty() && m_steps.back().endedMs < 0) m_steps.back().endedMs = m_clock.elapsed();
  m_steps.push_back(BootstrapStep{name, detail, m_clock.elapsed(), -1});
  m_currentStepName = name;
  emit stepStarted(name, detail);
}

void RemoteJob::endSteps() {
  if (!m_steps.isEmpty() && m_steps.back().endedMs < 0) m_steps.back().endedMs = m_clock.elapsed();
}

void RemoteJob::runStep(std::function<void()> step) {
  m_currentStep = std::move(step);
  m_currentStep();
}

void RemoteJob::stepFailed(const QString& message) {
  // The state change that follows a lost link is queued right behind this failure: look once it
  // has arrived. A step cut by the link runs again when the link is back (every step can: the
  // launch answers what it started the first time); any other failure ends the start.
  QTimer::singleShot(0, this, [this, message] {
    if (m_state != State::Starting) return;
    if (m_host && m_host->state() == LinkState::Reconnecting) {
      addOutput(tr("The link to %1 was lost; the step runs again once it is back.").arg(m_launch.spec));
      m_retryStep = true;
      return;
    }
    fail(message);
  });
}

void RemoteJob::releaseHost() {
  m_pollTimer.stop();
  m_goneTimer.stop();
  m_trainerDownloadId = -1;
  m_sync.reset();  // before the connection it copies over
  m_execs.clear();
  m_uploadsInFlight.clear();
  if (m_host) m_host.release()->deleteLater();  // it may be inside one of its own signals now
}

void RemoteJob::upload(const QString& local, const QString& remote, UploadDone done) {
  if (!m_host) return;
  const int id = m_host->upload(local, remote);
  m_uploadsInFlight[id] = std::move(done);
}

void RemoteJob::fail(const QString& sentence) {
  if (m_state == State::Finished) return;
  endSteps();
  addOutput(sentence);
  releaseHost();
  // The mirror says what happened, so the run list shows a failed run with its reason.
  RunInfo info;
  const RunInfoReadResult existing = readRunInfo(RunPaths{runDir().toStdString()});
  if (existing.ok()) info = existing.info;
  info.id = QFileInfo(runDir()).fileName().toStdString();
  if (info.name.empty()) info.name = m_launch.config.name;
  if (info.host.empty()) info.host = m_launch.spec.toStdString();
  info.status = RunStatus::Failed;
  info.exitReason = sentence.toStdString();
  if (info.created.empty()) info.created = isoTimeUtc(std::chrono::system_clock::now());
  writeRunInfo(RunPaths{runDir().toStdString()}, info);
  const bool wasStarting = m_state == State::Starting;
  setState(State::Finished);
  if (wasStarting) emit failedToStart(sentence);
  emit finished(1);
}

QString RemoteJob::helper() const {
  return shellQuote(m_record.helper);
}

QString RemoteJob::remoteName() const {
  return m_launch.remoteName.isEmpty() ? QFileInfo(m_launch.localRunDir).fileName() : m_launch.remoteName;
}

// --- start: the bootstrap steps ---------------------------------------------------------------

void RemoteJob::watch(const RemoteLaunch& launch, const QString& remoteRunDir) {
  m_watchDir = remoteRunDir;
  start(launch);
}

void RemoteJob::continueOn(const RemoteLaunch& launch) {
  RemoteRecord before;
  if (readRemoteRecord(launch.localRunDir, &before)) m_continuedFrom = before.spec;
  m_continuing = true;
  start(launch);
}

void RemoteJob::start(const RemoteLaunch& launch) {
  if (m_state != State::Idle) return;
  m_launch = launch;
  m_mirror = std::make_unique<RunMirror>(launch.localRunDir);
  QDir().mkpath(launch.localRunDir);
  m_record = RemoteRecord::fromTarget(launch.spec, launch.target);
  setState(State::Starting);
  m_sourcesHash = readText(QDir(launch.payloadDir).filePath("trainer-sources.sha256")).left(64);
  if (m_sourcesHash.size() != 64 || !QFileInfo::exists(QDir(launch.payloadDir).filePath("trainer-sources.tar"))) {
    fail(tr("The trainer's sources for remote builds are not in %1: this app was built without them.")
             .arg(launch.payloadDir));
    return;
  }
  beginStep(QStringLiteral("connect"), launch.spec);
  setLinkText(tr("connecting"));
  makeHost(launch.target);
  connect(m_host.get(), &RemoteHost::readyChanged, this, [this](bool ready) {
    if (!ready || m_state != State::Starting) return;
    if (m_record.workDir.isEmpty() && !m_currentStep) return runStep([this] { stepWorkFolder(); });
    if (m_retryStep && m_currentStep) {
      m_retryStep = false;
      m_currentStep();
    }
  });
  m_host->connectToHost();
}

void RemoteJob::stepWorkFolder() {
  beginStep(QStringLiteral("work folder"), m_launch.workDir);
  const QString dir = shellPath(m_launch.workDir);
  exec(QStringLiteral("umask 077 && mkdir -p -- %1 && chmod 700 -- %1 && cd -- %1 && pwd").arg(dir),
       [this](int status, const QByteArray& out, const QByteArray& err) {
         const QString work = QString::fromUtf8(out).trimmed();
         if (status != 0 || !work.startsWith('/'))
           return fail(tr("Could not make the work folder %1 on %2: %3")
                           .arg(m_launch.workDir, m_launch.spec, QString::fromUtf8(err).trimmed()));
         m_record.workDir = work;
         m_record.helper = work + "/traindeck-remote-" + m_sourcesHash.left(12) + ".sh";
         runStep([this] { stepHelper(); });
       });
}

void RemoteJob::stepHelper() {
  upload(QDir(m_launch.payloadDir).filePath("traindeck-remote.sh"), m_record.helper, [this] {
    if (m_watchDir.isEmpty())
      runStep([this] { stepProbe(); });
    else
      runStep([this] { stepWatchFolder(); });
  });
}

void RemoteJob::stepWatchFolder() {
  beginStep(QStringLiteral("watch"), m_watchDir);
  const QString dir = shellPath(m_watchDir);
  exec(QStringLiteral("cd -- %1 && test -f run.json -o -f metrics.jsonl && pwd").arg(dir), [this](int status,
                                                                                                  const QByteArray& out,
                                                                                                  const QByteArray&) {
    const QString absolute = QString::fromUtf8(out).trimmed();
    if (status != 0 || !absolute.startsWith('/'))
      return fail(
          tr("%1 on %2 is not a run folder (no run.json or metrics.jsonl there yet).").arg(m_watchDir, m_launch.spec));
    m_record.remoteRunDir = absolute;
    m_record.watchOnly = true;
    if (const QString why = writeRemoteRecord(runDir(), m_record); !why.isEmpty()) return fail(why);
    addOutput(tr("Watching %1 on %2 (started there, not by TrainDeck)").arg(absolute, m_launch.spec));
    startFollowing();
  });
}

void RemoteJob::stepProbe() {
  beginStep(QStringLiteral("probe"), QString());
  exec("sh " + helper() + " probe " + shellQuote(m_record.workDir),
       [this](int status, const QByteArray& out, const QByteArray& err) {
         m_probe = parseHostProbe(out);
         if (status != 0 || !m_probe.complete)
           return fail(tr("Could not learn what %1 has: %2").arg(m_launch.spec, QString::fromUtf8(err).trimmed()));
         m_record.bootId = m_probe.bootId;
         addOutput(tr("%1: %2").arg(m_launch.spec, m_probe.summary()));
         emit probed(m_probe);
         const QStringList missing = m_probe.missingForBuild();
         if (missing.isEmpty()) return runStep([this] { stepSources(); });
         const QStringList packages = m_probe.packagesToInstall();
         if (packages.isEmpty() || m_installTried) return fail(missing.join(' '));
         const QString question = tr("%1 lacks what building the trainer needs: %2\n\nInstall %3 there now, as "
                                     "root, with apt-get?")
                                      .arg(m_launch.spec, missing.join(' '), packages.join(' '));
         // Asked outside this answer's handler: a dialog runs its own event loop.
         QTimer::singleShot(0, this, [this, missing, packages, question] {
           if (m_state != State::Starting) return;
           if (!m_installPrompt || !m_installPrompt(question))
             return fail(missing.join(' ') + tr(" (The account there is root: TrainDeck can install %1 for you "
                                                "when asked, or with traindeck --launch … --install-missing.)")
                                                 .arg(packages.join(' ')));
           runStep([this, packages] { stepInstall(packages); });
         });
       });
}

void RemoteJob::stepInstall(const QStringList& packages) {
  beginStep(QStringLiteral("install"), packages.join(' '));
  m_installTried = true;
  exec(
      shellJoin(QStringList{"sh", m_record.helper, "install"} + packages),
      [this](int status, const QByteArray& out, const QByteArray&) {
        const QMap<QString, QString> answer = parseKeyValues(out);
        if (status != 0 || !answer.contains("installed"))
          return fail(
              tr("Installing on %1 failed: %2").arg(m_launch.spec, answer.value("error", tr("see the output"))));
        addOutput(tr("Installed %1 on %2.").arg(answer.value("installed"), m_launch.spec));
        runStep([this] { stepProbe(); });  // once more, to see what it has now
      },
      true);
}

void RemoteJob::stepSources() {
  beginStep(QStringLiteral("sources"), m_sourcesHash.left(12));
  const QString src = m_record.workDir + "/src/" + m_sourcesHash;
  exec("test -f " + shellQuote(src + "/.done"), [this, src](int status, const QByteArray&, const QByteArray&) {
    if (status == 0) {
      addOutput(tr("The trainer's sources %1 are there already.").arg(m_sourcesHash.left(12)));
      return runStep([this] { stepBuild(); });
    }
    const QString tarball = src + "." + remoteName() + ".tar";  // this start's: another may unpack and remove its own
    exec("mkdir -p -- " + shellQuote(m_record.workDir + "/src"),
         [this, src, tarball](int, const QByteArray&, const QByteArray&) {
           upload(QDir(m_launch.payloadDir).filePath("trainer-sources.tar"), tarball, [this, src, tarball] {
             exec("sh " + helper() + " unpack " + shellQuote(tarball) + " " + shellQuote(src),
                  [this, tarball](int status, const QByteArray& out, const QByteArray& err) {
                    if (status != 0) return fail(parseKeyValues(out).value("error", QString::fromUtf8(err).trimmed()));
                    exec("rm -f -- " + shellQuote(tarball),
                         [this](int, const QByteArray&, const QByteArray&) { runStep([this] { stepBuild(); }); });
                  });
           });
         });
  });
}

void RemoteJob::stepBuild() {
  const QString key = m_sourcesHash.left(16) + "-" + libtorchKey(m_probe);
  const QString build = m_record.workDir + "/build/" + key;
  beginStep(QStringLiteral("build"), key);
  m_record.trainBinary = build + "/bin/traindeck-train";
  exec("test -f " + shellQuote(build + "/.done") + " && test -x " + shellQuote(m_record.trainBinary),
       [this, build](int status, const QByteArray&, const QByteArray&) {
         if (status == 0) {
           addOutput(tr("The trainer for this LibTorch is built there already."));
           return afterBuild();
         }
         const QString home = TrainerCache(m_trainerCacheDir).binaryFor(trainerSignature(m_probe, m_sourcesHash));
         if (!home.isEmpty()) return runStep([this, home, build] { stepUploadTrainer(home, build); });
         runStep([this, build] { stepCompile(build); });
       });
}

void RemoteJob::stepUploadTrainer(const QString& binary, const QString& build) {
  addOutput(tr("A trainer built on a host like this one is kept here: uploading it instead of building."));
  exec("mkdir -p -- " + shellQuote(build + "/bin"), [this, binary, build](int, const QByteArray&, const QByteArray&) {
    upload(binary, m_record.trainBinary + ".partial", [this, build] {
      exec(shellJoin({"sh", m_record.helper, "install-trainer", build}),
           [this, build](int status, const QByteArray& out, const QByteArray& err) {
             const QMap<QString, QString> answer = parseKeyValues(out);
             if (status == 0 && answer.contains("installed")) {
               addOutput(tr("The trainer brought here runs on %1 (%2): nothing to build.")
                             .arg(m_launch.spec, answer.value("version", tr("its version"))));
               return afterBuild();
             }
             addOutput(tr("The trainer brought here does not run on %1 (%2): building it there.")
                           .arg(m_launch.spec, answer.value("error", QString::fromUtf8(err).trimmed())));
             runStep([this, build] { stepCompile(build); });
           });
    });
  });
}

void RemoteJob::stepCompile(const QString& build) {
  exec(
      "sh " + helper() + " build " + shellQuote(m_record.workDir + "/src/" + m_sourcesHash) + " " + shellQuote(build) +
          " " + shellQuote(m_probe.libtorchChoice()),
      [this](int status, const QByteArray& out, const QByteArray&) {
        const QMap<QString, QString> answer = parseKeyValues(out);
        if (status != 0 || !answer.contains("built"))
          return fail(tr("Building the trainer on %1 failed: %2")
                          .arg(m_launch.spec, answer.value("error", tr("see the build output"))));
        if (answer.value("built") == "cached") addOutput(tr("The trainer for this LibTorch is built there already."));
        afterBuild();
      },
      true);
}

void RemoteJob::afterBuild() {
  bringTrainerHome();
  RunConfig config = m_launch.config;
  const UploadPlan plan = planUploads(config, m_launch.configBaseDir, m_record.workDir);
  if (!plan.error.isEmpty()) return fail(plan.error);
  m_launch.config = config;
  m_uploads = plan.uploads;
  m_record.localPaths = plan.localPaths;
  runStep([this] { stepData(0); });
}

void RemoteJob::bringTrainerHome() {
  // In the background, over the same connection: the run does not wait for it, its end does.
  const TrainerSignature signature = trainerSignature(m_probe, m_sourcesHash);
  const TrainerCache cache(m_trainerCacheDir);
  if (m_trainerDownloadId >= 0 || !cache.binaryFor(signature).isEmpty() || !m_host) return;
  m_trainerDownloadId = m_host->download(m_record.trainBinary, cache.partialFor(signature, remoteName()));
}

void RemoteJob::stepData(int index) {
  if (index >= m_uploads.size()) {
    if (m_continuing) return runStep([this] { stepSeed(); });
    return runStep([this] { stepHold(); });
  }
  const PlannedUpload& up = m_uploads[index];
  beginStep(QStringLiteral("data"), up.field);
  exec("test -f " + shellQuote(up.remoteDir + "/.done"),
       [this, index](int status, const QByteArray&, const QByteArray&) {
         const PlannedUpload& up = m_uploads[index];
         if (status == 0) {
           addOutput(tr("%1 is on the host already (%2).").arg(up.field, up.key.left(12)));
           return runStep([this, index] { stepData(index + 1); });
         }
         QStringList dirs;
         for (const QString& file : up.files) dirs << shellQuote(QFileInfo(partialDataDir(up) + "/" + file).path());
         dirs.removeDuplicates();
         exec("mkdir -p -- " + dirs.join(' '), [this, index](int status, const QByteArray&, const QByteArray& err) {
           if (status != 0)
             return fail(tr("Could not make %1 on the host: %2")
                             .arg(partialDataDir(m_uploads[index]), QString::fromUtf8(err).trimmed()));
           stepDataFile(index, 0);
         });
       });
}

QString RemoteJob::partialDataDir(const PlannedUpload& up) const {
  // This run's own, then renamed: a cut upload is never taken for a complete one, and two starts
  // uploading the same data at once do not write into one folder.
  return up.remoteDir + ".partial-" + remoteName();
}

void RemoteJob::stepDataFile(int index, int file) {
  const PlannedUpload& up = m_uploads[index];
  if (file < up.files.size()) {
    const QString local = QDir(QFileInfo(up.localPath).absolutePath()).filePath(up.files[file]);
    addOutput(tr("uploading %1").arg(up.files[file]));
    upload(local, partialDataDir(up) + "/" + up.files[file], [this, index, file] { stepDataFile(index, file + 1); });
    return;
  }
  // Complete (.done inside it first), then renamed into place in one rename(2), unless another
  // start (another node on a shared file system) got there first; a folder there without .done
  // is an older version's leftover.
  const QString done = shellQuote(up.remoteDir), partial = shellQuote(partialDataDir(up));
  exec(QStringLiteral("if [ -f %1/.done ]; then rm -rf -- %2; else : > %2/.done && { [ ! -e %1 ] || [ -f %1/.done ] "
                      "|| rm -rf -- %1; } && { mv -T -- %2 %1 || { [ -f %1/.done ] && rm -rf -- %2; }; }; "
                      "fi")
           .arg(done, partial),
       [this, index](int status, const QByteArray&, const QByteArray& err) {
         if (status != 0) return fail(QString::fromUtf8(err).trimmed());
         runStep([this, index] { stepData(index + 1); });
       });
}

void RemoteJob::stepSeed() {
  const QString checkpoint = CheckpointSync::newestCheckpoint(runDir());
  if (checkpoint.isEmpty())
    return fail(tr("%1 has no complete checkpoint here to continue from.").arg(QFileInfo(runDir()).fileName()));
  beginStep(QStringLiteral("seed"), checkpoint);
  m_record.remoteRunDir = m_record.workDir + "/runs/" + remoteName();
  exec(shellJoin({"sh", m_record.helper, "seed", m_record.remoteRunDir}),
       [this, checkpoint](int status, const QByteArray& out, const QByteArray& err) {
         const QMap<QString, QString> answer = parseKeyValues(out);
         if (status != 0 || !answer.contains("seeded"))
           return fail(tr("Could not prepare the run's folder on %1: %2")
                           .arg(m_launch.spec, answer.value("error", QString::fromUtf8(err).trimmed())));
         if (answer.contains("moved_aside"))
           addOutput(tr("An earlier folder of this run on %1 was moved aside to %2.")
                         .arg(m_launch.spec, answer.value("moved_aside")));
         markMove(checkpoint);
         for (const QString& note : m_launch.notes) addOutput(note);
         // The growing files as the mirror has them (its offsets then hold there), then the checkpoint.
         const QDir dir(runDir());
         m_seedFiles = m_mirror->growingFiles();
         m_seedFiles.erase(std::remove_if(m_seedFiles.begin(), m_seedFiles.end(),
                                          [&dir](const QString& f) { return !QFileInfo::exists(dir.filePath(f)); }),
                           m_seedFiles.end());
         const QString folder = "checkpoints/" + checkpoint;
         QStringList subdirs{shellQuote(m_record.remoteRunDir + "/" + folder)};
         QDirIterator it(dir.filePath(folder), QDir::Files, QDirIterator::Subdirectories);
         QStringList files;
         while (it.hasNext()) {
           const QString relative = dir.relativeFilePath(it.next());
           if (QFileInfo(relative).fileName() != QLatin1String("COMPLETE")) files << relative;
           subdirs << shellQuote(m_record.remoteRunDir + "/" + QFileInfo(relative).path());
         }
         files.sort();
         m_seedFiles << files << folder + "/COMPLETE";
         subdirs.removeDuplicates();
         exec("mkdir -p -- " + subdirs.join(' '), [this](int status, const QByteArray&, const QByteArray& err) {
           if (status != 0) return fail(tr("Could not make the run's folders on %1: %2").arg(m_launch.spec, err));
           stepSeedFile(0);
         });
       });
}

void RemoteJob::stepSeedFile(int index) {
  if (index >= m_seedFiles.size()) return runStep([this] { stepHold(); });
  const QString& name = m_seedFiles[index];
  upload(QDir(runDir()).filePath(name), m_record.remoteRunDir + "/" + name, [this, index] { stepSeedFile(index + 1); });
}

void RemoteJob::markMove(const QString& checkpoint) {
  // In the run's own record, before it is uploaded, so that the copy there and the mirror agree:
  // an event where the curve moved from one host to the next.
  const qint64 step = CheckpointSync::stepOf(checkpoint);
  const QString message =
      m_continuedFrom.isEmpty() || m_continuedFrom == m_launch.spec
          ? tr("continued on %1 from checkpoint step %2").arg(m_launch.spec).arg(step)
          : tr("moved from %1 to %2: continued from checkpoint step %3").arg(m_continuedFrom, m_launch.spec).arg(step);
  const QString metrics = QDir(runDir()).filePath("metrics.jsonl");
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

void RemoteJob::stepHold() {
  if (!m_holdLaunch) return runStep([this] { stepLaunch(); });
  beginStep(QStringLiteral("waiting"), tr("for the other hosts"));
  emit readyToLaunch();
}

void RemoteJob::releaseLaunch() {
  if (m_state != State::Starting || m_currentStepName != QLatin1String("waiting")) return;
  runStep([this] { stepLaunch(); });
}

void RemoteJob::stepLaunch() {
  beginStep(QStringLiteral("launch"), m_continuing ? tr("resumed") : QString());
  const QString id = remoteName();
  m_record.remoteRunDir = m_record.workDir + "/runs/" + id;
  // The remote copy of the job: every key resolved, paths rewritten for the host, which is where
  // it runs (its target is that machine itself).
  RunConfig hostConfig = m_launch.config;
  hostConfig.target = TargetConfig{};
  QTemporaryFile config;
  const QByteArray yaml = QByteArray::fromStdString(saveConfigText(hostConfig));
  if (!config.open() || config.write(yaml) != yaml.size() || !config.flush())
    return fail(tr("Could not write the job's remote copy: %1").arg(config.errorString()));
  const QString remoteConfig = m_record.workDir + "/runs/" + id + ".job.yaml";
  const QString localConfig = config.fileName();
  config.setAutoRemove(false);
  // Recorded before it is launched (pid 0: launching): an app closed before the answer came
  // back finds the run again by asking the host what it started (attach).
  if (const QString why = writeRemoteRecord(runDir(), m_record); !why.isEmpty()) return fail(why);
  exec("mkdir -p -- " + shellQuote(m_record.workDir + "/runs"), [this, localConfig, remoteConfig](
                                                                    int, const QByteArray&, const QByteArray&) {
    upload(localConfig, remoteConfig, [this, localConfig, remoteConfig] {
      QFile::remove(localConfig);
      QStringList argv{"sh", m_record.helper, "launch", m_record.trainBinary, remoteConfig, m_record.remoteRunDir};
      argv += m_launch.extraArgs;
      exec(shellJoin(argv), [this](int status, const QByteArray& out, const QByteArray& err) {
        const QMap<QString, QString> answer = parseKeyValues(out);
        if (status != 0 || answer.value("pid").toLongLong() <= 0)
          return fail(tr("The trainer did not start on %1: %2")
                          .arg(m_launch.spec, answer.value("error", QString::fromUtf8(err).trimmed())));
        m_record.pid = answer.value("pid").toLongLong();
        m_record.startTime = answer.value("start_time");
        m_record.bootId = answer.value("boot_id");
        if (const QString why = writeRemoteRecord(runDir(), m_record); !why.isEmpty()) return fail(why);
        addOutput(tr("Started on %1 as pid %2 in %3").arg(m_launch.spec).arg(m_record.pid).arg(m_record.remoteRunDir));
        startFollowing();
        if (m_stopRequested) stop();  // Stop was pressed while the launch was on its way
      });
    });
  });
}

// --- following ---------------------------------------------------------------------------------

QString RemoteJob::attach(const QString& runDir, bool batch) {
  if (m_state != State::Idle) return tr("this job is already in use");
  QString error;
  if (!readRemoteRecord(runDir, &m_record, &error))
    return error.isEmpty() ? tr("%1 is not the mirror of a remote run (no remote.json)").arg(runDir) : error;
  const RunInfoReadResult read = readRunInfo(RunPaths{runDir.toStdString()});
  if (read.ok() && !isLive(read.info.status))
    return tr("the run is not running (status %1)").arg(QString::fromUtf8(toString(read.info.status)));
  m_launch.config.name = read.ok() ? read.info.name : QFileInfo(runDir).fileName().toStdString();
  m_launch.spec = m_record.spec;
  m_launch.localRunDir = runDir;
  m_mirror = std::make_unique<RunMirror>(runDir);
  makeHost(m_record.target(batch));
  m_host->connectToHost();
  if (m_record.pid > 0 || m_record.watchOnly) {
    startFollowing();
    return {};
  }
  // Launched while the answer was lost (the app closed on the way): the host says what it
  // started, if anything, once the link is up.
  setState(State::Starting);
  m_currentStepName = QStringLiteral("launch");
  setLinkText(tr("connecting"));
  connect(m_host.get(), &RemoteHost::readyChanged, this, [this](bool ready) {
    if (!ready || m_state != State::Starting || m_currentStep) return;
    runStep([this] { stepLaunched(); });
  });
  return {};
}

void RemoteJob::stepLaunched() {
  beginStep(QStringLiteral("launch"), tr("asking what was started"));
  exec(shellJoin({"sh", m_record.helper, "launched", m_record.remoteRunDir}),
       [this](int status, const QByteArray& out, const QByteArray& err) {
         const QMap<QString, QString> answer = parseKeyValues(out);
         if (status != 0)
           return fail(tr("Could not ask %1 about the run: %2").arg(m_launch.spec, QString::fromUtf8(err)));
         if (answer.value("pid").toLongLong() <= 0)
           return fail(tr("The run was never started on %1: TrainDeck closed before the launch reached it. Start it "
                          "again (what was built or uploaded there is kept).")
                           .arg(m_launch.spec));
         m_record.pid = answer.value("pid").toLongLong();
         m_record.startTime = answer.value("start_time");
         m_record.bootId = answer.value("boot_id");
         if (const QString why = writeRemoteRecord(runDir(), m_record); !why.isEmpty()) return fail(why);
         addOutput(tr("Found the run on %1 as pid %2").arg(m_launch.spec).arg(m_record.pid));
         startFollowing();
         if (m_stopRequested) stop();
       });
}

void RemoteJob::startFollowing() {
  endSteps();
  setState(State::Running);
  setLinkText(m_host->isReady() ? tr("following") : tr("connecting"));
  if (!m_host->isReady() && m_goneAfterMs > 0) m_goneTimer.start(m_goneAfterMs);
  m_pollTimer.start();
  poll();
  if (m_record.watchOnly || m_keepHere <= 0 || m_sync) return;
  m_sync = std::make_unique<CheckpointSync>(runDir(), m_record, m_host.get(), m_keepHere);
  connect(m_sync.get(), &CheckpointSync::synced, this, [this](const QString& name, qint64 bytes, double seconds) {
    const double mb = static_cast<double>(bytes) / 1e6;
    addOutput(tr("Checkpoint %1 is here: %2 MB in %3 s (%4 MB/s); the newest %5 kept")
                  .arg(name)
                  .arg(mb, 0, 'f', 1)
                  .arg(seconds, 0, 'f', 1)
                  .arg(seconds > 0 ? mb / seconds : 0, 0, 'f', 1)
                  .arg(m_keepHere));
  });
  connect(m_sync.get(), &CheckpointSync::syncFailed, this, [this](const QString& why) {
    addOutput(tr("Copying the newest checkpoint here failed (tried again in %1 s): %2")
                  .arg(CheckpointSync::kIntervalMs / 1000)
                  .arg(why));
  });
  m_sync->start();
}

bool RemoteJob::lastCheckpointCopied() {
  if (!m_sync || m_lastCopy == LastCopy::Done) return true;
  if (m_lastCopy == LastCopy::NotYet) {
    m_lastCopy = LastCopy::Running;
    setLinkText(tr("copying the last checkpoint here"));
    // A copy under way may be of an older one: the last copy starts after it.
    const auto lastCopy = [this] {
      connect(
          m_sync.get(), &CheckpointSync::idle, this,
          [this] {
            m_lastCopy = LastCopy::Done;
            poll();
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

void RemoteJob::poll() {
  if (m_pollInFlight || !m_host || !m_host->isReady()) return;
  m_pollInFlight = true;
  QStringList argv{"sh",
                   m_record.helper,
                   "read",
                   m_record.remoteRunDir,
                   QString::number(kMaxReadBytes),
                   QString::number(m_record.pid),
                   m_record.startTime};
  argv += m_mirror->readArguments();
  // No helper: the work folder went (a fresh runtime behind the same address).
  const QString command = "test -f " + helper() + " || { echo " + kWorkFolderGone + "; exit 0; }; " + shellJoin(argv);
  m_pollId = exec(command, [this](int status, const QByteArray& out, const QByteArray& err) {
    m_pollInFlight = false;
    if (out.trimmed().endsWith(kWorkFolderGone))
      return runtimeGone(tr("the work folder %1 is not on %2 any more").arg(m_record.workDir, m_launch.spec));
    RemoteReadAnswer answer = parseRemoteReadAnswer(out);
    if (status != 0 && !answer.complete) answer.error = QString::fromUtf8(err).trimmed();
    onAnswer(answer);
  });
}

void RemoteJob::onAnswer(const RemoteReadAnswer& answer) {
  if (m_state == State::Finished) return;
  if (!answer.complete) {
    addOutput(tr("Reading the run on %1 failed: %2").arg(m_launch.spec, answer.error));
    return;
  }
  if (m_record.watchOnly && m_record.bootId.isEmpty()) {  // from now on a reboot there is seen
    m_record.bootId = answer.bootId;
    writeRemoteRecord(runDir(), m_record);
  }
  if (!m_record.bootId.isEmpty() && answer.bootId != m_record.bootId)
    return runtimeGone(tr("%1 restarted (its boot id changed) while the run was going").arg(m_launch.spec));
  if (!answer.runDirExists)
    return runtimeGone(tr("the run folder %1 is not on %2 any more").arg(m_record.remoteRunDir, m_launch.spec));
  if (const QString why = m_mirror->apply(answer); !why.isEmpty()) {
    addOutput(why);
    return;
  }
  const RunInfoReadResult read = readRunInfo(RunPaths{runDir().toStdString()});
  const bool ended = read.ok() && !isLive(read.info.status);
  // Ended, and its supervisor gone (it writes its last lines after run.json), all of it here.
  // A watched run has no supervisor of ours: its run.json alone says when it is over.
  const bool supervisorAlive = !m_record.watchOnly && answer.supervisorAlive;
  if (ended && !m_endedSeen.isValid()) m_endedSeen.start();
  if (ended && RunMirror::caughtUp(answer) && (!supervisorAlive || m_endedSeen.elapsed() > kSupervisorGraceMs)) {
    if (!lastCheckpointCopied()) return;
    if (m_trainerDownloadId >= 0) return setLinkText(tr("bringing the trainer built there home"));
    releaseHost();
    setLinkText(tr("finished"));
    setState(State::Finished);
    emit finished(read.info.status == RunStatus::Failed ? 1 : 0);
    return;
  }
  if (!m_record.watchOnly && !answer.supervisorAlive && !ended && RunMirror::caughtUp(answer)) {
    // Once more, in case run.json was being replaced as the supervisor ended.
    if (!m_supervisorGoneOnce) {
      m_supervisorGoneOnce = true;
      return;
    }
    if (!read.ok()) {  // it never wrote run.json: it refused the job, or died at once
      return fail(tr("The trainer on %1 ended without starting the run: %2")
                      .arg(m_launch.spec, supervisorLogTail(runDir(), 3).join(' ')));
    }
    releaseHost();
    setLinkText(tr("ended"));
    setState(State::Finished);
    emit finished(-1);  // killed: run.json says nothing
  }
}

void RemoteJob::signalSupervisor(const QString& signal) {
  exec(shellJoin({"sh", m_record.helper, "signal", signal, QString::number(m_record.pid), m_record.startTime}),
       [this, signal](int status, const QByteArray& out, const QByteArray& err) {
         const QString answer = parseKeyValues(out).value("signalled");
         if (status != 0) {
           addOutput(tr("Could not send %1 to the run on %2: %3; try again once the link is back.")
                         .arg(signal, m_launch.spec, QString::fromUtf8(err).trimmed()));
           if (m_state == State::Stopping) setState(State::Running);  // Stop can be pressed again
         } else if (answer == "gone")
           addOutput(tr("The run's supervisor on %1 had ended already.").arg(m_launch.spec));
       });
}

bool RemoteJob::refusedAsWatched() {
  if (!m_record.watchOnly) return false;
  addOutput(tr("This run was started on %1 outside TrainDeck: stop it there.").arg(m_launch.spec));
  return true;
}

void RemoteJob::stop() {
  if (m_state == State::Starting) return cancelStart();
  if (refusedAsWatched()) return;
  if (m_state != State::Running || !m_host) return;
  signalSupervisor(QStringLiteral("TERM"));
  setState(State::Stopping);
}

void RemoteJob::kill() {
  if (m_state == State::Starting) return cancelStart();
  if (refusedAsWatched()) return;
  if ((m_state != State::Running && m_state != State::Stopping) || !m_host) return;
  signalSupervisor(QStringLiteral("KILL"));
}

void RemoteJob::cancelStart() {
  if (m_currentStepName == QLatin1String("launch")) {
    m_stopRequested = true;  // the trainer may be starting there: stopped as soon as its pid is known
    return;
  }
  // What runs there now (a build, an upload) ends by itself; its result stays cached for next time.
  fail(tr("Stopped before the run started (during the %1 step).").arg(m_currentStepName));
}

}  // namespace traindeck
