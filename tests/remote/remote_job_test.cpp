// Remote jobs against a real OpenSSH server on loopback that stands for a cloud VM, with a
// remote work folder apart from everything local, reached through a socat ProxyCommand:
// `traindeck --launch` builds the bundled trainer there for real (once: the later launches
// find it cached), uploads the job's data, starts the run detached and mirrors it; the mirror
// is byte-identical to the remote run folder after the proxy was killed and frozen mid-run;
// `traindeck --stop` stops it; names holding shell syntax run nothing; a run stopped on a
// runtime that is then wiped (a fresh one behind the same address) continues there with
// `traindeck --continue`, on the trainer brought home instead of a build, and its losses are
// those of an uninterrupted run; a runtime that goes (unreachable past the limit, or its run
// folder gone) fails the run naming the checkpoint that is here. Also the pieces alone:
// the helper's probe on this machine, the read answer's framing and the mirror's rules.
#include <signal.h>
#include <unistd.h>

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSet>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <functional>
#include <numeric>

#include "checkpoint_sync.h"
#include "host_probe.h"
#include "job_controller.h"
#include "remote_answers.h"
#include "remote_record.h"
#include "remote_uploads.h"
#include "run_mirror.h"
#include "run_status.h"
#include "runlog/run_directory.h"
#include "sshd_server.h"
#include "trainer_cache.h"

using namespace traindeck;
using traindeck::test::SshdServer;

namespace {

QByteArray sha256Of(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return "missing " + path.toUtf8();
  return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex();
}

constexpr const char* kGxx11 = "/usr/bin/g++-11";

bool write(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

std::string statusOf(const QString& runDir) {
  return test_support::runStatus(runDir);
}

using test_support::trainLosses;
using test_support::trainSteps;

struct Launched {
  QProcess* process = nullptr;
  QString runDir;  // the mirror
};

}  // namespace

class RemoteJobTest : public QObject {
  Q_OBJECT
  SshdServer m_server;
  QTemporaryDir m_local;       // the job, its data, the local runs root
  QTemporaryDir m_remoteHome;  // the host's side: the work folder lives here only
  QString m_knownHosts, m_pidFile;
  bool m_built = false;
  bool m_skipBuild = qEnvironmentVariableIsSet("TRAINDECK_SKIP_REMOTE_BUILD");

  QString work() const { return m_remoteHome.filePath("work"); }

  QStringList launchArgs(const QString& config, const QStringList& sets, const QString& workDir = {},
                         const SshdServer* server = nullptr, const QString& knownHosts = {}) {
    if (server == nullptr) server = &m_server;
    QStringList args{"--launch",
                     server->spec(),
                     "--config",
                     config,
                     "--identity",
                     server->clientKey(),
                     "--known-hosts",
                     knownHosts.isEmpty() ? m_knownHosts : knownHosts,
                     "--proxy-command",
                     server->proxyCommand(m_pidFile),
                     "--batch",
                     "--runs-root",
                     m_local.filePath("runs"),
                     "--remote-dir",
                     workDir.isEmpty() ? work() : workDir};
    for (const QString& kv : sets) args << "--set" << kv;
    return args;
  }

  // Starts `traindeck --launch ...`; the mirror's folder is its first line.
  Launched launch(const QStringList& args) {
    Launched l;
    l.process = new QProcess(this);
    l.process->setProcessEnvironment(QProcessEnvironment::systemEnvironment());
    l.process->start(TRAINDECK_BIN, args);
    if (!l.process->waitForStarted(5000)) return l;
    while (!l.process->canReadLine() && l.process->state() == QProcess::Running) l.process->waitForReadyRead(1000);
    l.runDir = QString::fromUtf8(l.process->readLine()).trimmed();
    return l;
  }

  // Waits for the launcher to end (the run too); its stderr for messages.
  static QString finish(Launched& l, int timeoutMs, int* exitCode) {
    QElapsedTimer clock;
    clock.start();
    while (l.process->state() != QProcess::NotRunning && clock.elapsed() < timeoutMs) l.process->waitForFinished(1000);
    const bool ended = l.process->state() == QProcess::NotRunning;
    *exitCode = ended && l.process->exitStatus() == QProcess::NormalExit ? l.process->exitCode() : -1;
    return QString::fromUtf8(l.process->readAllStandardError()) +
           QStringLiteral("\n(launcher: %1, exit code %2)")
               .arg(!ended                                            ? "still running"
                    : l.process->exitStatus() == QProcess::NormalExit ? "ended"
                                                                      : "crashed")
               .arg(l.process->exitCode());
  }

  void compareMirror(const QString& runDir) {
    const QString remote = work() + "/runs/" + QFileInfo(runDir).fileName();
    QStringList names{"metrics.jsonl", "run.json", "config.yaml", "supervisor.log"};
    for (const QString& log : QDir(remote + "/logs").entryList({"rank-*.log"})) names << "logs/" + log;
    QVERIFY(names.size() >= 5);
    for (const QString& name : names)
      QVERIFY2(sha256Of(runDir + "/" + name) == sha256Of(remote + "/" + name), qPrintable(name + " differs"));
  }

 private slots:
  void initTestCase() {
    if (const QString missing = SshdServer::missingPackage(); !missing.isEmpty())
      QSKIP(qPrintable("install " + missing + " to run the SSH tests"));
    qunsetenv("SSH_AUTH_SOCK");
    // The "host" builds with the g++ of Colab's Ubuntu 22.04 image, 11, where Debian has it.
    if (QFileInfo::exists(kGxx11)) m_server.setExtraConfig("SetEnv CXX=g++-11 CC=gcc-11\n");
    QCOMPARE(m_server.start(), QString());
    m_knownHosts = m_local.filePath("known_hosts");
    QVERIFY(m_server.writeKnownHosts(m_knownHosts));
    m_pidFile = m_local.filePath("proxy.pid");
    // Trainers built there come home into this test's own cache (the launcher reads it).
    qputenv("XDG_CACHE_HOME", m_local.filePath("cache").toUtf8());
    QProcess make;
    make.start("sh", {QStringLiteral(TRAINDECK_TEST_DATA_DIR) + "/cli/make_tiny_job.sh", TRAINDECK_TRAIN_BIN,
                      m_local.filePath("job")});
    QVERIFY(make.waitForFinished(120000) && make.exitCode() == 0);
  }

  void theProbeSaysWhatThisMachineHas() {
    QProcess probe;
    probe.start("sh", {TRAINDECK_REMOTE_HELPER, "probe", m_remoteHome.filePath("nowhere/yet")});
    QVERIFY(probe.waitForFinished(60000));
    const HostProbe p = parseHostProbe(probe.readAllStandardOutput());
    QVERIFY(p.complete);
    QVERIFY(p.cpus >= 1 && p.memoryKiB > 0 && p.diskFreeKiB > 0);
    QVERIFY(!p.bootId.isEmpty() && !p.os.isEmpty());
    QVERIFY(!p.cmake.isEmpty() && !p.gxx.isEmpty());  // this machine builds the trainer
    QVERIFY(p.missingForBuild().isEmpty());
    QVERIFY2(p.summary().contains("CPU") || p.summary().contains("×"), qPrintable(p.summary()));
    HostProbe bare = p;
    bare.cmake.clear();
    bare.uid = 1000;
    bare.apt = true;
    QVERIFY2(bare.missingForBuild().join(' ').contains("sudo apt-get install -y cmake"),
             qPrintable(bare.missingForBuild().join(' ')));
    QVERIFY(bare.packagesToInstall().isEmpty());  // not root: only the command is named
    bare.uid = 0;
    QCOMPARE(bare.packagesToInstall(), QStringList{"cmake"});
    bare.cmake = "3.16.3";  // Ubuntu 20.04's: too old
    QVERIFY2(bare.missingForBuild().join(' ').contains("older than 3.22"),
             qPrintable(bare.missingForBuild().join(' ')));
    QCOMPARE(bare.packagesToInstall(), QStringList{"cmake"});
    bare.cmake = "3.22.1";  // Colab's
    QVERIFY(bare.missingForBuild().isEmpty());
    bare.apt = false;
    bare.cmake.clear();
    QVERIFY(bare.packagesToInstall().isEmpty());  // no apt-get: nothing offered
    HostProbe full = p;                           // a nearly full disk is said before anything is uploaded
    full.diskFreeKiB = 200 * 1024;
    QVERIFY2(full.missingForBuild().join(' ').contains("Only 200 MB are free"),
             qPrintable(full.missingForBuild().join(' ')));
  }

  void aHostWithoutCmakeIsOneSentenceAndRunsNothing() {
    // The host: everything this machine's /usr/bin has but cmake, as the PATH its commands get.
    const QString bin = m_local.filePath("bin-without-cmake");
    QVERIFY(QDir().mkpath(bin));
    for (const QFileInfo& tool : QDir("/usr/bin").entryInfoList(QDir::Files | QDir::System))
      if (tool.fileName() != "cmake") QFile::link(tool.absoluteFilePath(), bin + "/" + tool.fileName());
    SshdServer bare;
    bare.setExtraConfig("SetEnv PATH=" + bin + "\n");
    QCOMPARE(bare.start(), QString());
    const QString knownHosts = m_local.filePath("known_hosts_bare");
    QVERIFY(bare.writeKnownHosts(knownHosts));
    const QString workDir = m_remoteHome.filePath("bare-work");
    Launched l = launch(launchArgs(m_local.filePath("job/job.yaml"), {}, workDir, &bare, knownHosts));
    int code = -1;
    const QString err = finish(l, 120000, &code);
    QCOMPARE(code, 1);
    QVERIFY2(err.contains("no cmake") && err.contains("apt-get install -y cmake"), qPrintable(err.right(3000)));
    if (::geteuid() == 0)  // a root account with apt-get is offered the install; --batch asks nothing
      QVERIFY2(err.contains("--install-missing"), qPrintable(err.right(3000)));
    QVERIFY(!err.contains("[build]"));
    QVERIFY(!QDir(workDir + "/build").exists());
    QCOMPARE(statusOf(l.runDir), std::string("failed"));
  }

  void readAnswersAreFramedAndMirroredByOffset() {
    QTemporaryDir mirrorDir;
    RunMirror mirror(mirrorDir.path());
    RemoteReadAnswer a = parseRemoteReadAnswer(
        "boot b1\nalive yes\nfile metrics.jsonl 8 0 4\nabc\n\nfile run.json 2 0 2\n{}\nfile ../evil 3 0 3\nxyz\nend\n");
    QVERIFY2(a.complete, qPrintable(a.error));
    QCOMPARE(a.files.size(), 3);
    QCOMPARE(mirror.apply(a), QString());
    QFile metrics(mirrorDir.filePath("metrics.jsonl"));
    QVERIFY(metrics.open(QIODevice::ReadOnly));
    QCOMPARE(metrics.readAll(), QByteArray("abc\n"));
    metrics.close();
    QVERIFY(!QFile::exists(mirrorDir.filePath("../evil")));  // a name that climbs out is not written
    QVERIFY(!RunMirror::caughtUp(a));                        // 4 of 8 bytes
    QVERIFY(mirror.readArguments().join(' ').contains("metrics.jsonl 4"));
    // An answer to an older request (from 0 while 4 bytes are here, file not shorter) is skipped.
    mirror.apply(parseRemoteReadAnswer("boot b1\nalive yes\nfile metrics.jsonl 8 0 4\nabc\n\nend\n"));
    QVERIFY(metrics.open(QIODevice::ReadOnly));
    QCOMPARE(metrics.readAll(), QByteArray("abc\n"));
    metrics.close();
    // The remote file replaced by a shorter one: read again from the start.
    mirror.apply(parseRemoteReadAnswer("boot b1\nalive yes\nfile metrics.jsonl 2 0 2\nz\n\nend\n"));
    QVERIFY(metrics.open(QIODevice::ReadOnly));
    QCOMPARE(metrics.readAll(), QByteArray("z\n"));
    // What a chatty login shell prints first is not part of the answer.
    const RemoteReadAnswer chatty =
        parseRemoteReadAnswer("Welcome to the VM!\nfile x\nboot b1\nalive no\nfile run.json 2 0 2\n{}\nend\n");
    QVERIFY2(chatty.complete && chatty.files.size() == 1 && !chatty.supervisorAlive, qPrintable(chatty.error));
    // Cut or garbled answers are not applied.
    QVERIFY(!parseRemoteReadAnswer("boot b1\nfile metrics.jsonl 8 0 4\nab").complete);
    QVERIFY(!parseRemoteReadAnswer("boot b1\nfile metrics.jsonl 8 0 x\nabcd\nend\n").complete);
    QVERIFY(!mirror.apply(parseRemoteReadAnswer("boot b1\nalive yes\nfile metrics.jsonl 8 0 4\nab")).isEmpty());
  }

  void theHelperLaunchesOnceAndSignalsOnlyItsOwnProcess() {
    // A stand-in trainer that just waits; launch asked twice (its answer lost with the link) starts one.
    QTemporaryDir dir;
    const QString fake = dir.filePath("fake-train");
    QFile script(fake);
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write("#!/bin/sh\nexec sleep 60\n");
    script.close();
    script.setPermissions(script.permissions() | QFile::ExeOwner);
    const auto helper = [](const QStringList& args) {
      QProcess p;
      p.start("sh", QStringList{TRAINDECK_REMOTE_HELPER} + args);
      p.waitForFinished(20000);
      return parseKeyValues(p.readAllStandardOutput());
    };
    const QString runDir = dir.filePath("runs/r1");
    const auto first = helper({"launch", fake, dir.filePath("job.yaml"), runDir});
    const auto again = helper({"launch", fake, dir.filePath("job.yaml"), runDir});
    QVERIFY(first.value("pid").toLongLong() > 0);
    QCOMPARE(again.value("pid"), first.value("pid"));
    QCOMPARE(again.value("start_time"), first.value("start_time"));
    QCOMPARE(helper({"alive", first.value("pid"), first.value("start_time")}).value("alive"), QString("yes"));
    QCOMPARE(helper({"alive", first.value("pid"), ""}).value("alive"), QString("no"));  // no start time: not it
    QCOMPARE(helper({"signal", "TERM", first.value("pid"), "1"}).value("signalled"), QString("gone"));  // another start
    QCOMPARE(helper({"signal", "TERM", first.value("pid"), first.value("start_time")}).value("signalled"),
             QString("yes"));
    QTRY_COMPARE(helper({"alive", first.value("pid"), first.value("start_time")}).value("alive"), QString("no"));
  }

  // The app closed after the launch went out and before its answer came back: the mirror holds
  // remote.json with no pid. Reopened, the app asks the host what it started and follows that;
  // a launch that never reached the host is a failed run saying so, and nothing is started.
  void aLaunchWhoseAnswerWasLostIsFoundAgain() {
    const QString work = m_remoteHome.filePath("lost"), runs = m_local.filePath("lost-runs");
    QVERIFY(QDir().mkpath(work) && QDir().mkpath(runs));
    const QString helper = work + "/helper.sh", fake = work + "/fake-train";
    QVERIFY(QFile::copy(TRAINDECK_REMOTE_HELPER, helper));
    QFile script(fake);
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write("#!/bin/sh\nexec sleep 120\n");
    script.close();
    script.setPermissions(script.permissions() | QFile::ExeOwner);
    QProcess launched;
    launched.start("sh", {helper, "launch", fake, work + "/job.yaml", work + "/runs/found"});
    QVERIFY(launched.waitForFinished(20000));
    const QMap<QString, QString> started = parseKeyValues(launched.readAllStandardOutput());
    QVERIFY(started.value("pid").toLongLong() > 0);

    SshTarget target = SshTarget::parse(m_server.spec());
    target.identityFiles << m_server.clientKey();
    target.proxyCommand = m_server.proxyCommand(m_pidFile);
    target.knownHostsFile = m_knownHosts;
    for (const QString& id : {QStringLiteral("found"), QStringLiteral("never")}) {
      RemoteRecord record = RemoteRecord::fromTarget(m_server.spec(), target);
      record.workDir = work;
      record.helper = helper;
      record.remoteRunDir = work + "/runs/" + id;
      record.trainBinary = fake;
      QVERIFY(QDir().mkpath(runs + "/" + id));
      QCOMPARE(writeRemoteRecord(runs + "/" + id, record), QString());
    }
    JobController jobs(runs, {});
    JobController::RemoteOptions options;
    options.batch = true;
    jobs.setRemoteOptions(options);
    QCOMPARE(jobs.attachRunning(), 2);
    Job* found = jobs.jobFor(runs + "/found");
    Job* never = jobs.jobFor(runs + "/never");
    QVERIFY(found && never);
    QTRY_VERIFY_WITH_TIMEOUT(found->state() == Job::State::Running && never->state() == Job::State::Finished, 20000);
    RemoteRecord again;
    QVERIFY(readRemoteRecord(runs + "/found", &again));
    QCOMPARE(QString::number(again.pid), started.value("pid"));
    QCOMPARE(again.startTime, started.value("start_time"));
    QCOMPARE(statusOf(runs + "/never"), std::string("failed"));
    QVERIFY(QString::fromStdString(readRunInfo(RunPaths{(runs + "/never").toStdString()}).info.exitReason)
                .contains("never started"));
    QVERIFY(!QFile::exists(work + "/runs/never/launch.env"));  // asking started nothing
    ::kill(static_cast<pid_t>(again.pid), SIGKILL);
  }

  // --fetch: the newest COMPLETE checkpoint comes home whole (COMPLETE last), a folder without
  // COMPLETE never; asked again, nothing moves.
  void checkpointsAreFetchedWholeOrNotAtAll() {
    const QString work = m_remoteHome.filePath("fetch"), mirror = m_local.filePath("fetch-runs/r1");
    const QString remoteRun = work + "/runs/r1";
    QVERIFY(QDir().mkpath(remoteRun + "/checkpoints/step-00000010") && QDir().mkpath(mirror));
    QVERIFY(QDir().mkpath(remoteRun + "/checkpoints/step-00000020"));
    QVERIFY(QFile::copy(TRAINDECK_REMOTE_HELPER, work + "/helper.sh"));
    QByteArray weights(3 << 20, Qt::Uninitialized);
    for (qsizetype i = 0; i < weights.size(); ++i) weights[i] = static_cast<char>((i * 7919) >> 5);
    const QString complete = remoteRun + "/checkpoints/step-00000010";
    QVERIFY(write(complete + "/model.safetensors", weights) && write(complete + "/state.json", "{\"step\":10}") &&
            write(complete + "/COMPLETE", ""));
    QVERIFY(write(remoteRun + "/checkpoints/step-00000020/model.safetensors", "half"));  // being written
    SshTarget target = SshTarget::parse(m_server.spec());
    target.identityFiles << m_server.clientKey();
    target.proxyCommand = m_server.proxyCommand(m_pidFile);
    target.knownHostsFile = m_knownHosts;
    RemoteRecord record = RemoteRecord::fromTarget(m_server.spec(), target);
    record.workDir = work;
    record.helper = work + "/helper.sh";
    record.remoteRunDir = remoteRun;
    QCOMPARE(writeRemoteRecord(mirror, record), QString());
    for (int round = 0; round < 2; ++round) {
      QProcess fetch;
      fetch.start(TRAINDECK_BIN, {"--fetch", mirror, "--batch"});
      QVERIFY(fetch.waitForFinished(60000));
      QVERIFY2(fetch.exitCode() == 0, fetch.readAllStandardError().constData());
      QCOMPARE(QString::fromUtf8(fetch.readAllStandardOutput()).trimmed(), mirror + "/checkpoints/step-00000010");
      for (const char* name : {"model.safetensors", "state.json", "COMPLETE"})
        QCOMPARE(sha256Of(mirror + "/checkpoints/step-00000010/" + name), sha256Of(complete + "/" + name));
      QCOMPARE(QDir(mirror + "/checkpoints").entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
               QStringList{"step-00000010"});  // no step-00000020, no .partial
    }
    // A run with no complete checkpoint: a sentence, exit 1, nothing made.
    QVERIFY(QFile::remove(complete + "/COMPLETE"));
    QVERIFY(QDir(mirror + "/checkpoints").removeRecursively());
    QProcess none;
    none.start(TRAINDECK_BIN, {"--fetch", mirror, "--batch"});
    QVERIFY(none.waitForFinished(60000));
    QCOMPARE(none.exitCode(), 1);
    QVERIFY2(none.readAllStandardError().contains("no complete checkpoint"), "no sentence");
    QVERIFY(!QDir(mirror + "/checkpoints").exists());
  }

  // What the background copy keeps: the newest K complete checkpoints by step number; one being
  // copied (.partial) or without COMPLETE is not counted and not removed.
  void theMirrorKeepsTheNewestCompleteCheckpoints() {
    QTemporaryDir run;
    const auto make = [&](const QString& name, bool complete) {
      QVERIFY(QDir().mkpath(run.filePath("checkpoints/" + name)));
      QVERIFY(write(run.filePath("checkpoints/" + name + "/model.safetensors"), name.toUtf8()));
      if (complete) QVERIFY(write(run.filePath("checkpoints/" + name + "/COMPLETE"), ""));
    };
    make("step-00000005", true);
    make("step-00000010", true);
    make("step-00000020", true);
    make("step-00000030", false);
    make("step-00000040.partial", false);
    make("step-100", true);  // by number, not by text
    // Copies cut short: the newest may resume; the others' checkpoints are gone there (a host
    // that saves faster than a copy takes) or are older than one here.
    make("step-00000150.partial", false);
    make("step-00000200.partial", false);
    QCOMPARE(CheckpointSync::completeCheckpoints(run.path()),
             QStringList({"step-00000005", "step-00000010", "step-00000020", "step-100"}));
    QCOMPARE(CheckpointSync::pruneCheckpoints(run.path(), 2),
             QStringList({"step-00000005", "step-00000010", "step-00000040.partial", "step-00000150.partial"}));
    QCOMPARE(QDir(run.filePath("checkpoints")).entryList(QDir::Dirs | QDir::NoDotAndDotDot),
             QStringList({"step-00000020", "step-00000030", "step-00000200.partial", "step-100"}));
    QCOMPARE(CheckpointSync::pruneCheckpoints(run.path(), 2), QStringList());
  }

  // A trainer built on one host serves another only where everything it depends on is the same.
  void trainersAreKeptBySignature() {
    HostProbe colab = parseHostProbe(
        "boot_id=b\nos=Ubuntu 22.04.4 LTS\nglibc=2.35\narch=x86_64\ntorch=2.8.0+cu126\ntorch_cuda=12.6\n"
        "torch_prefix=/usr/local/lib/python3.12/dist-packages/torch/share/cmake\ntorch_cxx11_abi=1\n"
        "gpu=Tesla T4, 15360, 550.54\ngpu_arch=7.5\ncmake=3.31.6\ngxx=11.4.0\nend=probe\n");
    QCOMPARE(colab.gpuArch, QString("7.5"));
    QCOMPARE(colab.libtorchChoice(), QString("pip"));
    const TrainerSignature base = trainerSignature(colab, "s1");
    HostProbe fresh = colab;  // another runtime of the same image: another boot, the same build
    fresh.bootId = "other";
    fresh.hostname = "other";
    QCOMPARE(trainerSignature(fresh, "s1").key, base.key);
    QVERIFY(trainerSignature(colab, "s2").key != base.key);
    for (const auto& change : std::initializer_list<std::function<void(HostProbe&)>>{
             [](HostProbe& p) { p.torch = "2.9.0+cu126"; }, [](HostProbe& p) { p.torchCuda = "12.8"; },
             [](HostProbe& p) { p.gpuArch = "8.0"; }, [](HostProbe& p) { p.glibc = "2.39"; },
             [](HostProbe& p) { p.arch = "aarch64"; }}) {
      HostProbe other = colab;
      change(other);
      QVERIFY(trainerSignature(other, "s1").key != base.key);
    }
    QTemporaryDir dir;
    const TrainerCache cache(dir.path());
    QVERIFY(cache.binaryFor(base).isEmpty());
    QFile partial(cache.partialFor(base, "run-1"));
    QVERIFY(partial.open(QIODevice::WriteOnly) && partial.write("#!/bin/sh\n") > 0);
    partial.close();
    QVERIFY(cache.binaryFor(base).isEmpty());       // not until it is whole and kept
    QVERIFY(!cache.keep(base, "run-2").isEmpty());  // another run's download is not this one
    QVERIFY(cache.binaryFor(base).isEmpty());
    QCOMPARE(cache.keep(base, "run-1"), QString());
    QVERIFY(QFileInfo(cache.binaryFor(base)).isExecutable());
    QVERIFY(cache.binaryFor(trainerSignature(colab, "s2")).isEmpty());
  }

  void dataPathsAreUploadedByContentOrUsedRemotely() {
    QTemporaryDir dir;
    QDir().mkpath(dir.filePath("set/sub"));
    for (const auto& [name, text] : {std::pair{"set/dataset.json", "{}"}, {"set/sub/train-000000.bin", "tokens"}}) {
      QFile f(dir.filePath(name));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(text);
    }
    RunConfig config;
    config.data.train = "set";                              // relative to the job's folder
    config.data.val = "remote:/srv/data/val";               // already there
    config.data.vocab = dir.filePath("set").toStdString();  // the same folder again: one upload
    UploadPlan plan = planUploads(config, dir.path(), "/w");
    QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
    QCOMPARE(plan.uploads.size(), 1);
    const PlannedUpload& up = plan.uploads[0];
    QCOMPARE(up.files, (QStringList{"set/dataset.json", "set/sub/train-000000.bin"}));
    QCOMPARE(up.remotePath, "/w/data/" + up.key + "/set");
    QCOMPARE(QString::fromStdString(config.data.train), up.remotePath);
    QCOMPARE(config.data.val, std::string("/srv/data/val"));
    // What a run continued on another host uploads again: each local field's path here, kept in
    // remote.json; the field that was on the host already stays remote:.
    QCOMPARE(plan.localPaths,
             (QMap<QString, QString>{{"data.train", dir.filePath("set")}, {"data.vocab", dir.filePath("set")}}));
    RemoteRecord record;
    record.remoteRunDir = "/w/runs/r";
    record.localPaths = plan.localPaths;
    QCOMPARE(writeRemoteRecord(dir.filePath("mirror"), record), QString());
    RemoteRecord read;
    QVERIFY(readRemoteRecord(dir.filePath("mirror"), &read));
    QCOMPARE(read.localPaths, plan.localPaths);
    const QStringList onTheHost = restoreLocalPaths(config, read.localPaths);
    QCOMPARE(config.data.train, dir.filePath("set").toStdString());
    QCOMPARE(config.data.val, std::string("remote:/srv/data/val"));
    QCOMPARE(onTheHost, QStringList{"data.val /srv/data/val"});
    // The key follows the content: one byte more, another key.
    QFile f(dir.filePath("set/sub/train-000000.bin"));
    QVERIFY(f.open(QIODevice::Append));
    f.write("!");
    f.close();
    RunConfig again;
    again.data.train = "set";
    QVERIFY(planUploads(again, dir.path(), "/w").uploads.value(0).key != up.key);
    RunConfig glob;
    glob.data.train = "set/*.bin";
    QVERIFY(planUploads(glob, dir.path(), "/w").error.contains("glob"));
    RunConfig missing;
    missing.data.train = "nowhere";
    QVERIFY(planUploads(missing, dir.path(), "/w").error.contains("does not exist here"));
  }

  void launchesBuildsThereAndMirrorsTheRun() {
    if (m_skipBuild)
      QSKIP(
          "TRAINDECK_SKIP_REMOTE_BUILD is set: the real remote build (5-7 minutes on 2 cores) runs in the Debian 12 "
          "pass of CI only");
    // A checkpoint every 10 steps, the newest 2 copied here as it trains (the last before the end).
    Launched l = launch(launchArgs(m_local.filePath("job/job.yaml"), {"schedule.max_steps=30", "checkpoint.every=10"})
                        << "--keep-checkpoints"
                        << "2");
    QVERIFY2(!l.runDir.isEmpty(), qPrintable(l.process->readAllStandardError()));
    int code = -1;
    const QString err = finish(l, 1500000, &code);
    if (code != 0) qWarning().noquote() << err.right(8000);
    QVERIFY(code == 0);
    m_built = true;
    QVERIFY2(err.contains("[build]") && err.contains("[data]") && err.contains("[launch]"),
             qPrintable(err.right(3000)));
    if (QFileInfo::exists(kGxx11))
      QVERIFY2(err.contains("g++-11 (") && err.contains("11."), qPrintable(err.left(3000)));
    QCOMPARE(statusOf(l.runDir), std::string("finished"));
    compareMirror(l.runDir);
    const QVector<qint64> steps = trainSteps(l.runDir + "/metrics.jsonl");
    QVERIFY(!steps.isEmpty() && steps.back() == 30);
    QCOMPARE(QSet<qint64>(steps.begin(), steps.end()).size(), steps.size());
    QVERIFY(QFile::exists(l.runDir + "/remote.json"));
    // This run is shorter than the copy's 10 s interval, so the last checkpoint alone (copied before
    // the job ended) is certain to be here; which K are kept is theMirrorKeepsTheNewest... below.
    const QStringList here = CheckpointSync::completeCheckpoints(l.runDir);
    QVERIFY2(!here.isEmpty() && here.size() <= 2 && here.back() == "step-00000030", qPrintable(here.join(' ')));
    const QString remoteLast = work() + "/runs/" + QFileInfo(l.runDir).fileName() + "/checkpoints/step-00000030";
    const QStringList files = QDir(remoteLast).entryList(QDir::Files);
    QVERIFY(files.contains("COMPLETE") && files.size() >= 3);
    for (const QString& name : files)
      QVERIFY2(sha256Of(l.runDir + "/checkpoints/step-00000030/" + name) == sha256Of(remoteLast + "/" + name),
               qPrintable(name + " differs"));
    QVERIFY2(err.contains("Checkpoint step-00000030 is here"), qPrintable(err.right(3000)));
    // The trainer built there came home, for the next host like it.
    QVERIFY2(err.contains("is kept here"), qPrintable(err.right(3000)));
    const QStringList kept =
        QDir(m_local.filePath("cache/traindeck/trainers")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    QCOMPARE(kept.size(), 1);
    QVERIFY(QFileInfo(m_local.filePath("cache/traindeck/trainers/" + kept[0] + "/traindeck-train")).isExecutable());
    // The work folder is the owner's alone.
    QCOMPARE(QFile::permissions(work()) & (QFile::ReadGroup | QFile::ReadOther | QFile::ExeOther),
             QFileDevice::Permissions());

    // A second launch builds nothing and uploads nothing.
    Launched again = launch(launchArgs(m_local.filePath("job/job.yaml"), {"schedule.max_steps=5"}));
    const QString err2 = finish(again, 300000, &code);
    QVERIFY2(code == 0, qPrintable(err2.right(4000)));
    QVERIFY2(err2.contains("built there already") && err2.contains("sources") && err2.contains("on the host already"),
             qPrintable(err2.right(4000)));
    QVERIFY(!err2.contains("uploading"));
    QVERIFY(again.runDir != l.runDir);
  }

  // A fresh runtime: the run stops at step 20 (a checkpoint, copied here as the job ends), then
  // the host's work folder is wiped, as a new Colab runtime would have none of it. `traindeck
  // --continue` bootstraps it again with the trainer brought home (uploaded and checked, not
  // built), uploads the data and the checkpoint, and resumes: the mirror goes on to step 30,
  // every step once, with the move marked, and each loss is the uninterrupted run's.
  void aFreshRuntimeContinuesTheRunExactly() {
    if (!m_built) QSKIP("needs the build of launchesBuildsThereAndMirrorsTheRun");
    const QStringList sets{"schedule.max_steps=30", "checkpoint.every=10"};
    Launched l = launch(launchArgs(m_local.filePath("job/job.yaml"), sets) << "--stop-at"
                                                                           << "20");
    QVERIFY(!l.runDir.isEmpty());
    int code = -1;
    QString err = finish(l, 300000, &code);
    QVERIFY2(code == 0, qPrintable(err.right(4000)));
    QCOMPARE(statusOf(l.runDir), std::string("stopped"));
    QCOMPARE(CheckpointSync::completeCheckpoints(l.runDir).back(), QString("step-00000020"));

    QVERIFY(QDir(work()).removeRecursively());  // a fresh runtime behind the same address
    QStringList args = launchArgs(QString(), {});
    args[0] = "--continue";
    args[1] = l.runDir;
    args[2] = "--on";
    args[3] = m_server.spec();
    Launched c = launch(args);
    QCOMPARE(c.runDir, l.runDir);  // the same run, continued
    err = finish(c, 300000, &code);
    QVERIFY2(code == 0, qPrintable(err.right(6000)));
    QVERIFY2(err.contains("nothing to build") && !err.contains("Building CXX"), qPrintable(err.right(6000)));
    QVERIFY2(err.contains("[seed] step-00000020") && err.contains("continued on"), qPrintable(err.right(6000)));
    QCOMPARE(statusOf(l.runDir), std::string("finished"));
    compareMirror(l.runDir);
    QVector<qint64> expected(30);
    std::iota(expected.begin(), expected.end(), 1);
    QCOMPARE(trainSteps(l.runDir + "/metrics.jsonl"), expected);
    QFile metrics(l.runDir + "/metrics.jsonl");
    QVERIFY(metrics.open(QIODevice::ReadOnly));
    QVERIFY(metrics.readAll().contains("\"continued on " + m_server.spec().toUtf8() + " from checkpoint step 20\""));

    // The same job run here without a stop, by the same binary (the one brought home).
    const QDir trainers(m_local.filePath("cache/traindeck/trainers"));
    const QStringList kept = trainers.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    QCOMPARE(kept.size(), 1);
    QProcess straight;
    straight.start(trainers.filePath(kept[0] + "/traindeck-train"),
                   {"run", "--config", m_local.filePath("job/job.yaml"), "--run-dir", m_local.filePath("uninterrupted"),
                    "--no-progress", "--set", sets[0], "--set", sets[1]});
    QVERIFY(straight.waitForFinished(300000));
    QVERIFY2(straight.exitCode() == 0, straight.readAllStandardError().right(3000).constData());
    const QMap<qint64, double> want = trainLosses(m_local.filePath("uninterrupted/metrics.jsonl"));
    const QMap<qint64, double> got = trainLosses(l.runDir + "/metrics.jsonl");
    QCOMPARE(got.keys(), want.keys());
    // One binary computes both, and the resume is exact; 1e-6 leaves room only for a BLAS whose
    // threads sum in another order (a wrong data position or optimizer state moves it by 1e-3).
    for (auto it = want.begin(); it != want.end(); ++it)
      QVERIFY2(std::abs(got.value(it.key()) - it.value()) <= 1e-6 * std::abs(it.value()),
               qPrintable(QString("step %1: %2 vs %3").arg(it.key()).arg(got.value(it.key())).arg(it.value())));
  }

  // One job on two hosts (two sshd servers sharing the work folder, so one build serves both):
  // `--launch a,b` starts node 0 on a and node 1 on b together, mirrors both, and the job trains
  // as one host with both ranks does, step for step. Then a node killed on b takes the job down
  // on both hosts within 5 s (the app having been closed and opened again since the start), and
  // run.json names the node, its host and its rank.
  void twoHostsTrainOneJobAndAKilledNodeTakesBothDown() {
    if (!m_built) QSKIP("needs the build of launchesBuildsThereAndMirrorsTheRun");
    SshdServer other;
    QCOMPARE(other.start(), QString());
    QFile key(m_server.clientKey() + ".pub"), authorized(other.path("authorized_keys"));  // one key for both
    QVERIFY(key.open(QIODevice::ReadOnly) && authorized.open(QIODevice::Append));
    QVERIFY(authorized.write(key.readAll()) > 0);
    authorized.close();
    const QString knownHosts = m_local.filePath("known_hosts_two");
    QVERIFY(m_server.writeKnownHosts(knownHosts + ".a") && other.writeKnownHosts(knownHosts + ".b"));
    QFile a(knownHosts + ".a"), b(knownHosts + ".b");
    QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
    QVERIFY(write(knownHosts, a.readAll() + b.readAll()));
    const int port = [] {  // a port free here, for node 0's rendezvous
      QTcpServer probe;
      return probe.listen(QHostAddress::LocalHost, 0) ? static_cast<int>(probe.serverPort()) : 0;
    }();
    QVERIFY(port > 0);
    const QStringList sets{"strategy.kind=ddp", "strategy.micro_batch=4", "schedule.max_steps=20",
                           "checkpoint.every=10", "strategy.master_port=" + QString::number(port)};
    const auto onBoth = [&](const QStringList& more) {
      QStringList args = launchArgs(m_local.filePath("job/job.yaml"), sets + more, {}, &m_server, knownHosts);
      args[1] = m_server.spec() + "," + other.spec();
      const int proxy = static_cast<int>(args.indexOf("--proxy-command"));
      args.remove(proxy, 2);  // straight to each server's port
      return args << "--node-address"
                  << "127.0.0.1";
    };
    // The job's own rules refuse a host named twice before anything is reached.
    QStringList twice = onBoth({});
    twice[1] = m_server.spec() + "," + m_server.spec();
    Launched refused = launch(twice);
    int refusedCode = -1;
    const QString why = finish(refused, 30000, &refusedCode);
    QCOMPARE(refusedCode, 1);
    QVERIFY2(why.contains("is named twice") && !why.contains("[connect]"), qPrintable(why));

    Launched l = launch(onBoth({}));
    QVERIFY2(!l.runDir.isEmpty(), qPrintable(l.process->readAllStandardError()));
    int code = -1;
    QString err = finish(l, 300000, &code);
    QVERIFY2(code == 0, qPrintable(err.right(6000)));
    QVERIFY2(err.contains("node 0 [launch]") && err.contains("node 1 [launch]") && err.contains("node 1 [waiting]"),
             qPrintable(err.right(6000)));
    QCOMPARE(statusOf(l.runDir), std::string("finished"));
    const QString node1 = l.runDir + "/nodes/node-1";
    QCOMPARE(statusOf(node1), std::string("finished"));
    QCOMPARE(readRunInfo(RunPaths{l.runDir.toStdString()}).info.worldSize, 2);
    QVERIFY(QFile::exists(l.runDir + "/logs/rank-0.log") && QFile::exists(node1 + "/logs/rank-1.log"));
    const QString remote1 = work() + "/runs/" + QFileInfo(l.runDir).fileName() + ".node-1";
    QCOMPARE(sha256Of(node1 + "/logs/rank-1.log"), sha256Of(remote1 + "/logs/rank-1.log"));
    RemoteRecord record1;
    QVERIFY(readRemoteRecord(node1, &record1));
    QCOMPARE(record1.spec, other.spec());
    QVector<qint64> expected(20);
    std::iota(expected.begin(), expected.end(), 1);
    QCOMPARE(trainSteps(l.runDir + "/metrics.jsonl"), expected);
    QVERIFY(CheckpointSync::completeCheckpoints(l.runDir).contains("step-00000020"));

    // One host with both ranks, by the same binary (the one these hosts run).
    const QDir trainers(m_local.filePath("cache/traindeck/trainers"));
    const QStringList kept = trainers.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    QVERIFY(!kept.isEmpty());
    QStringList argv{
        "run",           "--config", m_local.filePath("job/job.yaml"), "--run-dir", m_local.filePath("one-host"),
        "--no-progress", "--set",    "strategy.nproc_per_node=2"};
    for (const QString& kv : sets.mid(0, 4)) argv << "--set" << kv;
    QProcess oneHost;
    oneHost.start(trainers.filePath(kept[0] + "/traindeck-train"), argv);
    QVERIFY(oneHost.waitForFinished(300000));
    QVERIFY2(oneHost.exitCode() == 0, oneHost.readAllStandardError().right(3000).constData());
    const QMap<qint64, double> want = trainLosses(m_local.filePath("one-host/metrics.jsonl"));
    const QMap<qint64, double> got = trainLosses(l.runDir + "/metrics.jsonl");
    QCOMPARE(got.keys(), want.keys());
    // Not bit for bit: a rank alone on its host computes with both cores, summing in another
    // order (a wrong shard of the data or a missed all-reduce moves a loss by 1e-3 or more).
    for (auto it = want.begin(); it != want.end(); ++it)
      QVERIFY2(std::abs(got.value(it.key()) - it.value()) <= 1e-5 * std::abs(it.value()),
               qPrintable(QString("step %1: %2 vs %3").arg(it.key()).arg(got.value(it.key())).arg(it.value())));

    // Stop from another process (--stop attaches to every node): both nodes save and stop.
    Launched stopped = launch(onBoth({"schedule.max_steps=1000000", "checkpoint.every=0"}));
    QVERIFY(!stopped.runDir.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(trainSteps(stopped.runDir + "/metrics.jsonl").size() >= 3, 120000);
    stopped.process->kill();
    stopped.process->waitForFinished(5000);
    QProcess stop;
    stop.start(TRAINDECK_BIN, {"--stop", stopped.runDir, "--batch", "--known-hosts", knownHosts});
    QVERIFY(stop.waitForFinished(180000));
    QVERIFY2(stop.exitCode() == 0, stop.readAllStandardError().right(4000).constData());
    QCOMPARE(statusOf(stopped.runDir), std::string("stopped"));
    QCOMPARE(statusOf(stopped.runDir + "/nodes/node-1"), std::string("stopped"));
    const qint64 stopStep = readRunInfo(RunPaths{stopped.runDir.toStdString()}).info.step;
    QVERIFY2(
        CheckpointSync::newestCheckpoint(stopped.runDir) == QStringLiteral("step-%1").arg(stopStep, 8, 10, QChar('0')),
        qPrintable(CheckpointSync::newestCheckpoint(stopped.runDir)));

    // The app closed while both nodes train, and opened again (--attach follows every node);
    // then node 1 is killed on its host (its supervisor, whose ranks die with it).
    Launched first = launch(onBoth({"schedule.max_steps=1000000", "checkpoint.every=0"}));
    QVERIFY(!first.runDir.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(trainSteps(first.runDir + "/metrics.jsonl").size() >= 3, 120000);
    first.process->kill();
    first.process->waitForFinished(5000);
    Launched k = launch({"--attach", first.runDir, "--batch", "--known-hosts", knownHosts});
    QCOMPARE(k.runDir, first.runDir);
    const qint64 stepsBefore = trainSteps(k.runDir + "/metrics.jsonl").size();
    QTRY_VERIFY_WITH_TIMEOUT(trainSteps(k.runDir + "/metrics.jsonl").size() > stepsBefore + 2, 60000);
    const auto rank1Device = [&] {  // node 1's device, in the run's own records (every 5 s)
      QFile metrics(k.runDir + "/metrics.jsonl");
      return metrics.open(QIODevice::ReadOnly) && metrics.readAll().contains("\"rank\":1,\"device\":\"cpu\"");
    };
    QTRY_VERIFY_WITH_TIMEOUT(rank1Device(), 30000);
    RemoteRecord killed;
    QVERIFY(readRemoteRecord(k.runDir + "/nodes/node-1", &killed) && killed.pid > 0);
    const QString remoteRuns = work() + "/runs/" + QFileInfo(k.runDir).fileName();  // both nodes' folders
    const auto processesLeft = [&] {
      QProcess pgrep;
      pgrep.start("pgrep", {"-f", "traindeck-train (run|worker) .*" + remoteRuns});  // supervisors and ranks
      pgrep.waitForFinished(5000);
      return QString::fromUtf8(pgrep.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts).size();
    };
    QVERIFY(processesLeft() >= 4);  // two supervisors, two ranks
    QElapsedTimer since;
    ::kill(static_cast<pid_t>(killed.pid), SIGKILL);
    since.start();
    while (processesLeft() > 0 && since.elapsed() < 30000) QTest::qWait(50);
    const qint64 downMs = since.elapsed();
    err = finish(k, 60000, &code);
    const qint64 saidMs = since.elapsed();
    qInfo("node 1 killed: both hosts' processes gone after %lld ms, the run said failed after %lld ms", downMs, saidMs);
    QCOMPARE(processesLeft(), 0);
    QVERIFY2(downMs <= 5000, qPrintable(QString::number(downMs)));
    QCOMPARE(code, 1);
    const RunInfo info = readRunInfo(RunPaths{k.runDir.toStdString()}).info;
    QCOMPARE(toString(info.status), std::string("failed"));
    const QString reason = QString::fromStdString(info.exitReason);
    QVERIFY2(reason.contains("node 1 on " + other.spec()) && reason.contains("rank 1") && reason.contains("killed"),
             qPrintable(reason));
    QCOMPARE(info.failedRank, 1);
    QVERIFY2(saidMs <= 5000 + 1000, qPrintable(err.right(3000)));  // the launcher's own exit after the verdict
  }

  // The runtime goes while the run trains: unreachable past --gone-after (the proxy refuses
  // every new connection), or reachable with its run folder gone. Each ends the job with one
  // sentence that says so and what is here; the remote processes are ended by the test.
  void aRuntimeThatGoesIsSaidToBeGone() {
    if (!m_built) QSKIP("needs the build of launchesBuildsThereAndMirrorsTheRun");
    const QString block = m_local.filePath("refuse-connections");
    const QString gated = QStringLiteral("test -e %1 && exit 1; %2").arg(block, m_server.proxyCommand(m_pidFile));
    const auto killRun = [](const QString& runDir) {
      RemoteRecord record;
      if (readRemoteRecord(runDir, &record) && record.pid > 0) ::kill(-static_cast<pid_t>(record.pid), SIGKILL);
    };

    QStringList args =
        launchArgs(m_local.filePath("job/job.yaml"), {"schedule.max_steps=100000", "checkpoint.every=0"});
    args[args.indexOf("--proxy-command") + 1] = gated;
    Launched l = launch(args << "--gone-after"
                             << "4");
    QVERIFY(!l.runDir.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(trainSteps(l.runDir + "/metrics.jsonl").size() >= 2, 120000);
    QFile(block).open(QIODevice::WriteOnly);
    ::kill(static_cast<pid_t>(SshdServer::readPid(m_pidFile)), SIGKILL);
    int code = -1;
    QString err = finish(l, 60000, &code);
    killRun(l.runDir);
    QFile::remove(block);
    QCOMPARE(code, 1);
    QVERIFY2(err.contains("Runtime gone") && err.contains("unreachable for"), qPrintable(err.right(3000)));
    QVERIFY2(err.contains("No checkpoint of it was copied here"), qPrintable(err.right(3000)));
    QCOMPARE(statusOf(l.runDir), std::string("failed"));

    // A checkpoint every 1000 steps (~10 s here), the newest 2 kept there: each lives long enough to come home.
    Launched f =
        launch(launchArgs(m_local.filePath("job/job.yaml"), {"schedule.max_steps=1000000", "checkpoint.every=1000"}));
    QVERIFY(!f.runDir.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(!CheckpointSync::completeCheckpoints(f.runDir).isEmpty(), 120000);
    const QString last = CheckpointSync::completeCheckpoints(f.runDir).back();
    // Gone at once (a rename), before its processes end: the next read finds no run folder.
    const QString there = work() + "/runs/" + QFileInfo(f.runDir).fileName();
    QVERIFY(QDir().rename(there, there + ".gone"));
    killRun(f.runDir);
    err = finish(f, 60000, &code);
    QCOMPARE(code, 1);
    QVERIFY2(err.contains("Runtime gone") && err.contains("is not on"), qPrintable(err.right(3000)));
    QVERIFY2(err.contains("Last checkpoint step-") && err.contains("--continue " + f.runDir),
             qPrintable(err.right(3000)));
    QVERIFY(CheckpointSync::completeCheckpoints(f.runDir).back() >= last);
  }

  // An exported script started on the host by hand writes its run folder there; `traindeck
  // --watch` mirrors it like a run of its own (nothing built or launched) until its run.json
  // says it ended: the mirror equals the folder there, byte for byte. A folder that is no run
  // is one sentence.
  void aRunStartedThereIsWatchedLikeOneOfOurs() {
    const QString remoteRun = m_remoteHome.filePath("exported/20261201-130000-exported-run");
    QProcess writer;
    writer.start("/usr/bin/python3",
                 {TRAINDECK_EXPORT_TEST_DIR "/write_run.py", TRAINDECK_RUN_WRITER, remoteRun, "150", "20", "live"});
    QVERIFY(writer.waitForStarted(5000));
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(remoteRun + "/metrics.jsonl"), 30000);
    const auto watchArgs = [&](const QString& dir) {
      QStringList args = launchArgs(QString(), {});
      args[0] = "--watch";
      args[2] = "--remote-run";
      args[3] = dir;
      return args;
    };
    Launched l = launch(watchArgs(remoteRun));
    QVERIFY2(!l.runDir.isEmpty(), qPrintable(l.process->readAllStandardError()));
    int code = -1;
    const QString err = finish(l, 120000, &code);
    QVERIFY2(code == 0, qPrintable(err.right(4000)));
    QVERIFY(writer.waitForFinished(60000) && writer.exitCode() == 0);
    QVERIFY2(err.contains("[watch]") && !err.contains("[build]") && !err.contains("[launch]"), qPrintable(err));
    QCOMPARE(statusOf(l.runDir), std::string("finished"));
    for (const QString name : {"metrics.jsonl", "run.json", "config.yaml"})
      QVERIFY2(sha256Of(l.runDir + "/" + name) == sha256Of(remoteRun + "/" + name), qPrintable(name + " differs"));
    const QVector<qint64> steps = trainSteps(l.runDir + "/metrics.jsonl");
    QCOMPARE(steps.size(), 150);
    QCOMPARE(steps.back(), 150);
    RemoteRecord record;
    QVERIFY(readRemoteRecord(l.runDir, &record));
    QVERIFY(record.watchOnly);
    QCOMPARE(record.pid, 0);

    Launched none = launch(watchArgs(m_remoteHome.filePath("no-such-run")));
    const QString why = finish(none, 60000, &code);
    QCOMPARE(code, 1);
    QVERIFY2(why.contains("is not a run folder"), qPrintable(why));
  }

  void survivesAKilledAndFrozenLinkAndStops() {
    if (!m_built) QSKIP("needs the build of launchesBuildsThereAndMirrorsTheRun");
    Launched l =
        launch(launchArgs(m_local.filePath("job/job.yaml"), {"schedule.max_steps=100000", "checkpoint.every=0"}));
    QVERIFY(!l.runDir.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(trainSteps(l.runDir + "/metrics.jsonl").size() >= 2, 120000);
    const RunInfoReadResult before = readRunInfo(RunPaths{l.runDir.toStdString()});
    QVERIFY(before.ok() && !before.info.rankPids.empty());
    for (int i = 0; i < 10; ++i) {  // the proxy killed: the link drops, is made again
      const qint64 pid = SshdServer::readPid(m_pidFile);
      QVERIFY(pid > 0);
      ::kill(static_cast<pid_t>(pid), SIGKILL);
      QTRY_VERIFY_WITH_TIMEOUT(SshdServer::readPid(m_pidFile) != pid, 30000);
      QTest::qWait(300);
    }
    for (int i = 0; i < 3; ++i) {  // frozen past the link timeout, then thawed
      const qint64 pid = SshdServer::readPid(m_pidFile);
      ::kill(static_cast<pid_t>(pid), SIGSTOP);
      QTest::qWait(2500);
      ::kill(static_cast<pid_t>(pid), SIGCONT);
      QTest::qWait(500);
    }
    QCOMPARE(statusOf(l.runDir), std::string("running"));  // a lost link never ends the job
    // The launcher detaches (Ctrl-C); the run goes on; --stop ends it from a new process.
    l.process->kill();
    l.process->waitForFinished(5000);
    QProcess stop;
    stop.start(TRAINDECK_BIN, {"--stop", l.runDir, "--batch", "--known-hosts", m_knownHosts});
    QVERIFY(stop.waitForFinished(180000));
    QVERIFY2(stop.exitCode() == 0, stop.readAllStandardError().right(4000).constData());
    QCOMPARE(statusOf(l.runDir), std::string("stopped"));
    compareMirror(l.runDir);
    const QVector<qint64> steps = trainSteps(l.runDir + "/metrics.jsonl");
    QCOMPARE(QSet<qint64>(steps.begin(), steps.end()).size(), steps.size());  // no step twice
    const RunInfoReadResult after = readRunInfo(RunPaths{l.runDir.toStdString()});
    QCOMPARE(after.info.rankPids, before.info.rankPids);  // the same processes throughout
    QCOMPARE(after.info.supervisorPid, before.info.supervisorPid);

    // The stop's checkpoint, exported for Hugging Face there, comes home on request.
    QProcess fetch;
    fetch.start(TRAINDECK_BIN, {"--fetch", l.runDir, "--hf", "--batch"});
    QVERIFY(fetch.waitForFinished(180000));
    QVERIFY2(fetch.exitCode() == 0, fetch.readAllStandardError().right(4000).constData());
    const QString exported = QString::fromUtf8(fetch.readAllStandardOutput()).trimmed();
    QVERIFY2(exported.startsWith(l.runDir + "/exports/step-") && exported.endsWith("-hf"), qPrintable(exported));
    const QString remoteExport =
        work() + "/runs/" + QFileInfo(l.runDir).fileName() + "/exports/" + QFileInfo(exported).fileName();
    for (const char* name : {"config.json", "model.safetensors"})
      QCOMPARE(sha256Of(exported + "/" + name), sha256Of(remoteExport + "/" + name));
  }

  void namesHoldingShellSyntaxRunNothing() {
    if (!m_built) QSKIP("needs the build of launchesBuildsThereAndMirrorsTheRun");
    // A data folder, a job name and a work folder that a shell would run.
    const QString hostile = QStringLiteral("da'ta $(touch PWNED1) `touch PWNED2`; touch PWNED3");
    QVERIFY(QDir().rename(m_local.filePath("job/data"), m_local.filePath("job/" + hostile)));
    QFile job(m_local.filePath("job/hostile.yaml"));
    QVERIFY(job.open(QIODevice::WriteOnly));
    QFile base(m_local.filePath("job/job.yaml"));
    QVERIFY(base.open(QIODevice::ReadOnly));
    QByteArray yaml = base.readAll();
    yaml.replace("name: tiny cli job", "name: \"x$(touch PWNED4); `touch PWNED5`\"");
    yaml.replace("train: data", "train: \"da'ta $(touch PWNED1) `touch PWNED2`; touch PWNED3\"");
    job.write(yaml);
    job.close();
    const QString hostileWork = m_remoteHome.filePath("w $(touch PWNED6) 'q'");
    // The build made above, copied there (the copy is as good as built), so only the names differ.
    QDir().mkpath(hostileWork);
    QCOMPARE(QProcess::execute("cp", {"-a", work() + "/src", work() + "/build", hostileWork + "/"}), 0);
    Launched l = launch(launchArgs(job.fileName(), {"schedule.max_steps=3"}, hostileWork));
    int code = -1;
    const QString err = finish(l, 300000, &code);
    QDir().rename(m_local.filePath("job/" + hostile), m_local.filePath("job/data"));
    QVERIFY2(code == 0, qPrintable(err.right(4000)));
    for (const QString& dir :
         {QDir::currentPath(), m_local.path(), m_remoteHome.path(), QDir::homePath(), QString("/tmp"), hostileWork})
      for (int i = 1; i <= 6; ++i) QVERIFY2(!QFile::exists(QString("%1/PWNED%2").arg(dir).arg(i)), qPrintable(dir));
    QCOMPARE(statusOf(l.runDir), std::string("finished"));
  }
};

QTEST_GUILESS_MAIN(RemoteJobTest)
#include "remote_job_test.moc"
