// LocalJob end to end with the real trainer: a tiny two-rank DDP job on the CPU, followed
// until train points arrive, attached to by a second job, stopped gracefully; then run.json
// says "stopped" and a complete checkpoint exists. And the contract itself: what a real
// `traindeck-train run` writes, read through the app's parser and core/runlog's run.json
// reader. Slow (tens of seconds); needs LibTorch.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <set>

#include "local_job.h"
#include "metrics_follower.h"
#include "metrics_store.h"
#include "run_status.h"
#include "run_summary.h"
#include "runlog/metrics_jsonl_parser.h"
#include "runlog/run_directory.h"
#include "tiny_job.h"

using namespace traindeck;
using test_support::makeTinyJob;
using test_support::runStatus;

class LocalJobTest : public QObject {
  Q_OBJECT
 private slots:
  void theTrainersRecordsReadThroughTheAppsReaders() {
    QTemporaryDir dir;
    const QString train = QStringLiteral(TRAINDECK_TRAIN_BIN);
    QVERIFY(makeTinyJob(dir.path()));
    const QString runDir = dir.filePath("run");
    QProcess run;
    run.setProcessChannelMode(QProcess::MergedChannels);
    run.start(train, {"run", "--config", dir.filePath("job.yaml"), "--run-dir", runDir, "--no-progress", "--set",
                      "strategy.kind=ddp", "--set", "strategy.nproc_per_node=2", "--set", "schedule.max_steps=12",
                      "--set", "checkpoint.every=0"});
    QVERIFY(run.waitForFinished(180000));
    QVERIFY2(run.exitCode() == 0, run.readAll().constData());

    QFile metrics(QDir(runDir).filePath("metrics.jsonl"));
    QVERIFY(metrics.open(QIODevice::ReadOnly));
    const QByteArray bytes = metrics.readAll();
    MetricsJsonlParser parser;
    const MetricsBatch batch = parser.feed(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
    QCOMPARE(batch.garbageLines, 0);
    QCOMPARE(parser.pendingBytes(), std::size_t(0));  // every record ends its line
    QVERIFY(batch.hasHeader);
    QCOMPARE(batch.header.totalSteps, 12);
    QCOMPARE(batch.header.worldSize, 2);
    QCOMPARE(batch.header.tokensPerStep, 2 * 4 * 32);  // ranks x micro-batch x block
    QCOMPARE(batch.train.size(), std::size_t(12));
    for (std::size_t i = 0; i < batch.train.size(); ++i) {
      QCOMPARE(batch.train.step[i], static_cast<std::int64_t>(i + 1));
      QVERIFY(std::isfinite(batch.train.loss[i]) && std::isfinite(batch.train.lr[i]));
      QVERIFY(batch.train.tokensPerSecond[i] > 0 && batch.train.stepMs[i] > 0);
    }
    QCOMPARE(batch.eval.size(), std::size_t(2));  // every 10 steps and at the end
    QCOMPARE(batch.eval.step.back(), 12);
    QVERIFY(std::isfinite(batch.eval.valLoss.back()));
    std::set<int> systemRanks;
    for (const SystemPoint& p : batch.system) {
      systemRanks.insert(p.rank);
      QCOMPARE(p.device, std::string("cpu"));
      QVERIFY(p.memUsed > 0 && p.memTotal >= p.memUsed);
    }
    QCOMPARE(systemRanks, (std::set<int>{0, 1}));
    QVERIFY(std::any_of(batch.events.begin(), batch.events.end(),
                        [](const EventPoint& e) { return e.message.find("checkpoint saved") != std::string::npos; }));

    const RunInfoReadResult info = readRunInfo(RunPaths{runDir.toStdString()});
    QVERIFY2(info.ok(), info.error.c_str());
    QCOMPARE(info.info.status, RunStatus::Finished);
    QCOMPARE(info.info.worldSize, 2);
    QCOMPARE(info.info.rankPids.size(), std::size_t(2));
    QCOMPARE(info.info.failedRank, -1);
    QCOMPARE(info.info.host, hostName());
    const RunSummary summary = readRunSummary(runDir);
    QVERIFY(summary.hasStatus(RunStatus::Finished));
    QCOMPARE(summary.host, QString::fromStdString(hostName()));
    QCOMPARE(summary.step, 12);
    QCOMPARE(summary.totalSteps, 12);
    QCOMPARE(summary.lastLoss, batch.train.loss.back());
  }

  void failsToStartAMissingBinary() {
    LocalJob job;
    QSignalSpy failed(&job, &LocalJob::failedToStart);
    job.start("/nonexistent/traindeck-train", "job.yaml", "/tmp/none");
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 5000);
    QCOMPARE(job.state(), Job::State::Finished);
  }

  void attachRefusesARunThatIsNotRunning() {
    QTemporaryDir dir;
    QFile f(dir.filePath("run.json"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"id":"x","status":"running","supervisor_pid":999999999})");
    f.close();
    LocalJob job;
    QVERIFY(!job.attach(dir.path()).isEmpty());
    QCOMPARE(job.state(), Job::State::Idle);
  }

  void attachTrustsAPidOnlyOnTheHostThatWroteIt() {
    // This test's own pid is alive; run.json says another machine wrote it: refused for the host.
    QTemporaryDir dir;
    QFile f(dir.filePath("run.json"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QString(R"({"id":"x","status":"running","host":"gpu-box-7","supervisor_pid":%1})")
                .arg(QCoreApplication::applicationPid())
                .toUtf8());
    f.close();
    LocalJob job;
    const QString why = job.attach(dir.path());
    QVERIFY2(why.contains("gpu-box-7") && why.contains("not on this machine"), qPrintable(why));
    QCOMPARE(job.state(), Job::State::Idle);
  }

  void aKilledRunSaysKilledAndLeavesNoProcess() {
    // Kill: no process left, and run.json says "killed" (it said "running" for ever before).
    QTemporaryDir dir;
    QVERIFY(makeTinyJob(dir.path()));
    const QString runDir = dir.filePath("run");
    LocalJob job;
    QSignalSpy finished(&job, &LocalJob::finished);
    job.start(QStringLiteral(TRAINDECK_TRAIN_BIN), dir.filePath("job.yaml"), runDir,
              {"--set", "schedule.max_steps=100000", "--set", "strategy.kind=ddp", "--set", "strategy.nproc_per_node=2",
               "--set", "checkpoint.every=0"});
    QTRY_COMPARE_WITH_TIMEOUT(runStatus(runDir), std::string("running"), 60000);
    const RunInfo before = readRunInfo(RunPaths{runDir.toStdString()}).info;
    QCOMPARE(before.rankPids.size(), std::size_t{2});
    job.kill();
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 10000);
    QCOMPARE(finished.at(0).at(0).toInt(), -1);
    QCOMPARE(runStatus(runDir), std::string("killed"));
    const RunInfo after = readRunInfo(RunPaths{runDir.toStdString()}).info;
    QVERIFY2(QString::fromStdString(after.exitReason).contains("killed from TrainDeck"), after.exitReason.c_str());
    for (const int pid : before.rankPids) QTRY_VERIFY_WITH_TIMEOUT(!QFile::exists(QString("/proc/%1").arg(pid)), 5000);
    // Nothing follows a killed run again.
    LocalJob again;
    QVERIFY(again.attach(runDir).contains("killed"));
  }

  void aRunFoundDeadIsMarkedKilledOnce() {
    // run.json of this machine says running, its supervisor is gone (killed while no app watched).
    QTemporaryDir dir;
    RunInfo info;
    info.id = "20261203-101500-dead";
    info.host = hostName();
    info.status = RunStatus::Running;
    info.supervisorPid = 999999999;
    QCOMPARE(writeRunInfo(RunPaths{dir.path().toStdString()}, info), std::string());
    LocalJob job;
    const QString why = job.attach(dir.path());
    QVERIFY2(why.contains("marked killed"), qPrintable(why));
    QCOMPARE(job.state(), Job::State::Idle);
    QCOMPARE(runStatus(dir.path()), std::string("killed"));
    QVERIFY(readRunSummary(dir.path()).exitReason.contains("999999999"));
    // A run that ended with its own verdict is left as it said.
    info.status = RunStatus::Finished;
    QCOMPARE(writeRunInfo(RunPaths{dir.path().toStdString()}, info), std::string());
    QVERIFY(!LocalJob().attach(dir.path()).isEmpty());
    QCOMPARE(runStatus(dir.path()), std::string("finished"));
  }

  void trainsAndStopsGracefully() {
    QTemporaryDir dir;
    const QString train = QStringLiteral(TRAINDECK_TRAIN_BIN);
    QVERIFY(makeTinyJob(dir.path()));
    const QString runDir = dir.filePath("run");

    LocalJob job;
    QSignalSpy states(&job, &LocalJob::stateChanged);
    QSignalSpy finished(&job, &LocalJob::finished);
    QSignalSpy failed(&job, &LocalJob::failedToStart);
    job.start(train, dir.filePath("job.yaml"), runDir,
              {"--set", "schedule.max_steps=100000", "--set", "strategy.kind=ddp", "--set", "strategy.nproc_per_node=2",
               "--set", "checkpoint.every=0"});
    QTRY_COMPARE_WITH_TIMEOUT(job.state(), Job::State::Running, 10000);
    QVERIFY(job.supervisorPid() > 0);

    MetricsFollower follower(runDir);
    MetricsStore store;
    connect(&follower, &MetricsFollower::metricsAvailable, this,
            [&](const SharedMetricsBatch& b) { store.append(*b); });
    follower.start();
    QTRY_VERIFY_WITH_TIMEOUT(store.train().size() >= 3, 120000);
    QVERIFY(failed.isEmpty());
    QCOMPARE(store.header().worldSize, 2);
    QCOMPARE(store.header().totalSteps, 100000);

    // Another app instance would attach: same supervisor, followed by pid.
    QTRY_COMPARE_WITH_TIMEOUT(runStatus(runDir), std::string("running"), 10000);
    LocalJob attached;
    QSignalSpy attachedFinished(&attached, &LocalJob::finished);
    QCOMPARE(attached.attach(runDir), QString());
    QCOMPARE(attached.supervisorPid(), job.supervisorPid());

    job.stop();
    QCOMPARE(job.state(), Job::State::Stopping);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 120000);
    QCOMPARE(job.state(), Job::State::Finished);
    QCOMPARE(finished.at(0).at(0).toInt(), 0);
    QCOMPARE(runStatus(runDir), std::string("stopped"));
    const QStringList checkpoints =
        QDir(QDir(runDir).filePath("checkpoints")).entryList({"step-*"}, QDir::Dirs | QDir::NoDotAndDotDot);
    QVERIFY2(!checkpoints.isEmpty(), "no checkpoint folder");
    QVERIFY(QFile::exists(QDir(runDir).filePath("checkpoints/" + checkpoints.last() + "/COMPLETE")));
    // The stop checkpoint is the last step trained (checkpoint.every=0 saves only then).
    QTRY_COMPARE_WITH_TIMEOUT(QString::asprintf("step-%08lld", static_cast<long long>(store.train().step.back())),
                              checkpoints.last(), 5000);
    qInfo("%zu train points, last step %lld, checkpoints %s", store.train().size(),
          static_cast<long long>(store.train().step.back()), qPrintable(checkpoints.join(' ')));
    QTRY_COMPARE_WITH_TIMEOUT(attachedFinished.size(), 1, 5000);
    QCOMPARE(attachedFinished.at(0).at(0).toInt(), 0);
    if (QTest::currentTestFailed()) qWarning() << job.recentOutput();
  }
};

QTEST_GUILESS_MAIN(LocalJobTest)
#include "local_job_test.moc"
