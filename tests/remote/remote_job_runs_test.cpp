// Remote jobs, real runs on the test host (RemoteJobTest, remote_job_test.h): the bundled trainer
// built there (once; a later launch finds it), the run mirrored byte for byte, continued on a
// fresh runtime exactly, one job on two hosts, a runtime that goes, a run watched, a link killed
// and frozen, and names holding shell syntax. Each builds the trainer first when no test has.
#include "remote_job_test.h"

void RemoteJobTest::launchesBuildsThereAndMirrorsTheRun() {
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
void RemoteJobTest::aFreshRuntimeContinuesTheRunExactly() {
  REQUIRE_TRAINER_THERE();
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
void RemoteJobTest::twoHostsTrainOneJobAndAKilledNodeTakesBothDown() {
  REQUIRE_TRAINER_THERE();
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
  QCOMPARE(record1.ssh.spec, other.spec());
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
  const auto endStopped = qScopeGuard([&] { endRunThere(stopped.runDir); });  // when a check fails
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
  const auto endFirst = qScopeGuard([&] { endRunThere(first.runDir); });
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
void RemoteJobTest::aRuntimeThatGoesIsSaidToBeGone() {
  REQUIRE_TRAINER_THERE();
  const QString block = m_local.filePath("refuse-connections");
  const QString gated = QStringLiteral("test -e %1 && exit 1; %2").arg(block, m_server.proxyCommand(m_pidFile));
  QStringList args =
      launchArgs(m_local.filePath("job/job.yaml"), {"schedule.max_steps=100000", "checkpoint.every=0"});
  args[args.indexOf("--proxy-command") + 1] = gated;
  Launched l = launch(args << "--gone-after"
                           << "4");
  QVERIFY(!l.runDir.isEmpty());
  const auto endFirst = qScopeGuard([&] { endRunThere(l.runDir); });  // also when a check fails
  QTRY_VERIFY_WITH_TIMEOUT(trainSteps(l.runDir + "/metrics.jsonl").size() >= 2, 120000);
  QFile(block).open(QIODevice::WriteOnly);
  ::kill(static_cast<pid_t>(SshdServer::readPid(m_pidFile)), SIGKILL);
  int code = -1;
  QString err = finish(l, 60000, &code);
  endRunThere(l.runDir);
  QFile::remove(block);
  QCOMPARE(code, 1);
  QVERIFY2(err.contains("Runtime gone") && err.contains("unreachable for"), qPrintable(err.right(3000)));
  QVERIFY2(err.contains("No checkpoint of it was copied here"), qPrintable(err.right(3000)));
  QCOMPARE(statusOf(l.runDir), std::string("failed"));

  // A checkpoint every 1000 steps (~10 s here), the newest 2 kept there: each lives long enough to come home.
  Launched f =
      launch(launchArgs(m_local.filePath("job/job.yaml"), {"schedule.max_steps=1000000", "checkpoint.every=1000"}));
  QVERIFY(!f.runDir.isEmpty());
  const auto endSecond = qScopeGuard([&] { endRunThere(f.runDir); });
  // The first one comes home within a minute or two when this test has the machine; slurm.runs'
  // trainers beside it in the suite (-j2 on two cores) have made it take 127-152 s: the wait is
  // for the copy, not a bound on it.
  QTRY_VERIFY_WITH_TIMEOUT(!CheckpointSync::completeCheckpoints(f.runDir).isEmpty(), 300000);
  const QString last = CheckpointSync::completeCheckpoints(f.runDir).back();
  // Gone at once (a rename), before its processes end: the next read finds no run folder.
  const QString there = work() + "/runs/" + QFileInfo(f.runDir).fileName();
  QVERIFY(QDir().rename(there, there + ".gone"));
  endRunThere(f.runDir);
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
void RemoteJobTest::aRunStartedThereIsWatchedLikeOneOfOurs() {
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

void RemoteJobTest::survivesAKilledAndFrozenLinkAndStops() {
  REQUIRE_TRAINER_THERE();
  Launched l =
      launch(launchArgs(m_local.filePath("job/job.yaml"), {"schedule.max_steps=100000", "checkpoint.every=0"}));
  QVERIFY(!l.runDir.isEmpty());
  const auto endRun = qScopeGuard([&] { endRunThere(l.runDir); });  // when a check fails before --stop
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

void RemoteJobTest::namesHoldingShellSyntaxRunNothing() {
  REQUIRE_TRAINER_THERE();
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
