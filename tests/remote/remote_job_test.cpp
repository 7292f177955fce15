// Remote jobs, the pieces (RemoteJobTest, remote_job_test.h): the helper's probe on this
// machine, a host without cmake, the read answer's framing and the mirror's rules, the helper's
// launch and signals, a launch whose answer was lost, fetches, the checkpoints kept here, the
// trainers kept by signature and the data uploaded by content.
#include "remote_job_test.h"

void RemoteJobTest::theProbeSaysWhatThisMachineHas() {
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

void RemoteJobTest::aHostWithoutCmakeIsOneSentenceAndRunsNothing() {
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

void RemoteJobTest::readAnswersAreFramedAndMirroredByOffset() {
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

void RemoteJobTest::theHelperLaunchesOnceAndSignalsOnlyItsOwnProcess() {
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
void RemoteJobTest::aLaunchWhoseAnswerWasLostIsFoundAgain() {
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
void RemoteJobTest::checkpointsAreFetchedWholeOrNotAtAll() {
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
void RemoteJobTest::theMirrorKeepsTheNewestCompleteCheckpoints() {
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
void RemoteJobTest::trainersAreKeptBySignature() {
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

void RemoteJobTest::dataPathsAreUploadedByContentOrUsedRemotely() {
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

QTEST_GUILESS_MAIN(RemoteJobTest)
