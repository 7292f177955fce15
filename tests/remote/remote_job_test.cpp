// Remote jobs, the pieces (RemoteJobTest, remote_job_test.h): the helper's probe on this
// machine, a host without cmake, the read answer's framing and the mirror's rules, the helper's
// launch and signals, a launch whose answer was lost, fetches, the checkpoints kept here, the
// trainers kept by signature and the data uploaded by content.
#include "remote_job_test.h"

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
  // The host's PATH is its sessions' (no login shell: /etc/profile would set PATH again).
  Launched l = launch(
      launchArgs(m_local.filePath("job/job.yaml"), {"target.login_shell=none"}, workDir, &bare, knownHosts));
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
    RemoteRecord record;
    record.ssh = target;
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
// COMPLETE never; asked again, nothing moves; asked twice at once, one copy writes it.
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
  RemoteRecord record;
  record.ssh = target;
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
  // Two followers of the same run copying at once (the app and `traindeck --stop`): one copies,
  // the other leaves it to that copy (a sentence, not a second writer in the same partial
  // folder): the checkpoint comes home whole, nothing partial or locked is left.
  QVERIFY(QDir(mirror + "/checkpoints").removeRecursively());
  QProcess first, second;
  first.start(TRAINDECK_BIN, {"--fetch", mirror, "--batch"});
  second.start(TRAINDECK_BIN, {"--fetch", mirror, "--batch"});
  QVERIFY(first.waitForFinished(60000) && second.waitForFinished(60000));
  const QByteArray said = first.readAllStandardError() + second.readAllStandardError();
  QVERIFY2(first.exitCode() == 0 || second.exitCode() == 0, said.constData());
  for (QProcess* p : {&first, &second})
    if (p->exitCode() != 0) QVERIFY2(said.contains("being copied here by another TrainDeck"), said.constData());
  for (const char* name : {"model.safetensors", "state.json", "COMPLETE"})
    QCOMPARE(sha256Of(mirror + "/checkpoints/step-00000010/" + name), sha256Of(complete + "/" + name));
  QCOMPARE(QDir(mirror + "/checkpoints").entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
           QStringList{"step-00000010"});
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

QTEST_GUILESS_MAIN(RemoteJobTest)
