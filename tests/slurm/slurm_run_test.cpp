// Slurm runs end to end, through a login node: the test's real Slurm (two nodes of this machine)
// behind the test sshd, reached by `traindeck --launch LOGIN --config JOB --set target.kind=slurm`
// as a user would; nothing is compiled there.
// Covered: a 2-node job trains, its losses are those of one machine with both ranks, and its
// mirror is byte-identical to the run folder on the shared file system, with slurm.sbatch kept
// in both and the job id in remote.json; `scontrol requeue` mid-run checkpoints, requeues and
// resumes exactly (every step once, each loss the uninterrupted run's, a "requeued" event); Stop
// after the app closed checkpoints and ends "stopped"; a job larger than its partition is not
// submitted; one that can never run for a reason the partitions do not show is cancelled and
// fails within a minute, saying why; a job waiting behind a busy cluster says "waiting for
// resources"; the cluster's set-up is found only through the login shell; a stopped run
// continues as a Slurm job (--continue); Kill (traindeck --kill) ends it "killed", asked by you,
// and a cancel from a terminal "killed", cancelled through Slurm, never "requeued". The login
// node and the cluster: SlurmLoginNode. (Slurm's time limit: slurm_time_limit_test.cpp.)
#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "run_status.h"
#include "runlog/run_directory.h"
#include "slurm_login_node.h"

using namespace traindeck;
using traindeck::test::SlurmCluster;
using traindeck::test::SlurmLoginNode;

namespace {

QByteArray sha256Of(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return "missing " + path.toUtf8();
  return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex();
}

QString readText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

}  // namespace

class SlurmRunTest : public QObject {
  Q_OBJECT
  SlurmLoginNode m_login;
  QMap<qint64, double> m_reference;  // one machine, both ranks: what every run here must train
  using Launched = SlurmLoginNode::Launched;

  // Empty, or the first step whose loss is not the reference's. One binary computes both and the
  // resume is exact; 1e-6 leaves room only for a BLAS whose threads sum in another order.
  QString lossesDifferFromTheReference(const QString& runDir) const {
    const QMap<qint64, double> got = test_support::trainLosses(runDir + "/metrics.jsonl");
    if (got.keys() != m_reference.keys())
      return QString("%1 steps recorded, the reference has %2").arg(got.size()).arg(m_reference.size());
    for (auto it = m_reference.cbegin(); it != m_reference.cend(); ++it)
      if (std::abs(got.value(it.key()) - it.value()) > 1e-6 * std::abs(it.value()))
        return QString("step %1: %2 vs %3").arg(it.key()).arg(got.value(it.key())).arg(it.value());
    return {};
  }

 private slots:
  void initTestCase() {
    const QString why = m_login.start(/*maxSteps=*/24, /*checkpointEvery=*/4);
    QVERIFY2(why.isEmpty(), qPrintable(why));
    // The reference: this machine alone with both ranks, the same job.
    QProcess straight;
    straight.start(TRAINDECK_TRAIN_BIN, {"run", "--config", m_login.local("job/job.yaml"), "--run-dir",
                                         m_login.local("reference"), "--no-progress", "--set",
                                         "strategy.nproc_per_node=2", "--set", "strategy.kind=ddp"});
    QVERIFY(straight.waitForFinished(300000));
    QVERIFY2(straight.exitCode() == 0, straight.readAllStandardError().constData());
    m_reference = test_support::trainLosses(m_login.local("reference/metrics.jsonl"));
    QCOMPARE(m_reference.size(), 24);
  }

  void aTwoNodeJobTrainsAndItsMirrorIsTheSharedFolder() {
    // Both nodes busy with another job first: the launcher says why its job waits.
    bool ok = false;
    const QString blocker =
        m_login.cluster().run("sbatch", {"--parsable", "--nodes=2", "--exclusive", "--output=/dev/null", "--wrap", "sleep 600"},
                              &ok)
            .trimmed();
    QVERIFY2(ok && !blocker.isEmpty(), qPrintable(m_login.cluster().lastError()));
    const auto cancelBlocker = qScopeGuard([this, blocker] { m_login.cluster().run("scancel", {blocker}); });
    QTRY_VERIFY_WITH_TIMEOUT(m_login.cluster().run("squeue", {"-h", "-j", blocker, "-o", "%T"}).contains("RUNNING"), 30000);
    Launched l = m_login.launch({"strategy.nproc_per_node=1"});
    QVERIFY2(!l.runDir.isEmpty(), "the launcher printed no mirror");
    QString early;
    QTRY_VERIFY_WITH_TIMEOUT((early += QString::fromUtf8(l.process->readAllStandardError()))
                                 .contains(QRegularExpression("Slurm job [0-9]+: pending: waiting for resources")),
                             90000);
    m_login.cluster().run("scancel", {blocker}, &ok);
    QVERIFY2(ok, qPrintable(m_login.cluster().lastError()));
    QString err;
    const int code = SlurmLoginNode::finish(l, 300000, &err);
    err.prepend(early);
    if (code != 0) qWarning().noquote() << err.right(4000) << "\n" << m_login.cluster().logs().right(2000);
    QCOMPARE(code, 0);
    QVERIFY2(!err.contains("building it there") && !err.contains("Building"), "the trainer was built there");
    // The queue's states were said on the way.
    QVERIFY2(err.contains("Submitted to Slurm through"), qPrintable(err.right(3000)));
    QVERIFY2(err.contains(QRegularExpression("Slurm job [0-9]+: (pending|running on n|ending on n)")),
             qPrintable(err.right(3000)));
    QCOMPARE(test_support::runStatus(l.runDir), std::string("finished"));
    const QString id = m_login.jobIdOf(l.runDir);
    QVERIFY2(!id.isEmpty(), "remote.json holds no Slurm job id");
    const QString remote = m_login.remoteRunDir(l.runDir);
    QVERIFY(readText(l.runDir + "/slurm.sbatch").contains("#SBATCH --nodes=2"));
    QCOMPARE(sha256Of(l.runDir + "/slurm.sbatch"), sha256Of(remote + "/slurm.sbatch"));
    QStringList names{"metrics.jsonl", "run.json", "config.yaml"};
    for (const QString& log : QDir(remote + "/logs").entryList({"rank-*.log"})) names << "logs/" + log;
    QCOMPARE(names.size(), 5);  // two ranks, one per node
    for (const QString& name : names)
      QVERIFY2(sha256Of(l.runDir + "/" + name) == sha256Of(remote + "/" + name), qPrintable(name + " differs"));
    // The job's own output comes home with the run (what it held when the run ended, at least).
    const QString jobOutput = "/slurm-" + id + ".out";
    QVERIFY2(QFileInfo::exists(l.runDir + jobOutput), "slurm-<id>.out was not copied home");
    QVERIFY(readText(remote + jobOutput).startsWith(readText(l.runDir + jobOutput)));
    // Two nodes train as one machine with both ranks does, step for step.
    const QString differs = lossesDifferFromTheReference(l.runDir);
    QVERIFY2(differs.isEmpty(), qPrintable(differs));
  }

  void aRequeueMidRunResumesExactly() {
    Launched l = m_login.launch({"strategy.nproc_per_node=1", "name=requeued job"});
    QVERIFY2(!l.runDir.isEmpty(), "the launcher printed no mirror");
    // Past the first checkpoint (step 4), then requeued as an administrator or a preemption would.
    QTRY_VERIFY_WITH_TIMEOUT(test_support::trainSteps(l.runDir + "/metrics.jsonl").size() >= 6, 240000);
    const QString id = m_login.jobIdOf(l.runDir);
    QVERIFY(!id.isEmpty());
    QTRY_VERIFY2_WITH_TIMEOUT(m_login.cluster().requeueOnce(id),
                              qPrintable(m_login.cluster().lastError() + "\n" + m_login.cluster().logs()), 30000);
    QString err;
    const int code = SlurmLoginNode::finish(l, 400000, &err);
    if (code != 0) qWarning().noquote() << err.right(4000) << "\n" << m_login.cluster().logs().right(2000);
    QCOMPARE(code, 0);
    QCOMPARE(test_support::runStatus(l.runDir), std::string("finished"));
    const QString metrics = readText(l.runDir + "/metrics.jsonl");
    QVERIFY2(metrics.contains("requeued"), "no event says the run was requeued");
    // Every step trained once in the end (later records win), each loss the uninterrupted run's.
    const QString differs = lossesDifferFromTheReference(l.runDir);
    QVERIFY2(differs.isEmpty(), qPrintable(differs));
  }

  // The app closed mid-run, then `traindeck --stop`: every rank checkpoints (USR2 to the job's
  // steps, the marker saying it was asked), the run ends "stopped", not "requeued", and the job
  // leaves the queue by itself.
  void stopCheckpointsAndEndsStopped() {
    Launched l = m_login.launch({"strategy.nproc_per_node=1", "schedule.max_steps=1000000", "name=stopped job"});
    QVERIFY2(!l.runDir.isEmpty(), "the launcher printed no mirror");
    QTRY_VERIFY_WITH_TIMEOUT(test_support::trainSteps(l.runDir + "/metrics.jsonl").size() >= 5, 240000);
    const QString id = m_login.jobIdOf(l.runDir);
    // A check that fails before the stop leaves no 1,000,000-step job running (a no-op after it).
    const auto cancelJob = qScopeGuard([this, id] { m_login.cluster().run("scancel", {id}); });
    l.process->kill();
    l.process->waitForFinished(5000);
    QProcess stop;
    stop.start(TRAINDECK_BIN, {"--stop", l.runDir, "--batch", "--known-hosts", m_login.knownHosts()});
    QVERIFY(stop.waitForFinished(180000));
    QVERIFY2(stop.exitCode() == 0, stop.readAllStandardError().right(4000).constData());
    QCOMPARE(test_support::runStatus(l.runDir), std::string("stopped"));
    const qint64 stopStep = readRunInfo(RunPaths{l.runDir.toStdString()}).info.step;
    QVERIFY(stopStep >= 5);
    QVERIFY(QFileInfo::exists(m_login.remoteRunDir(l.runDir) +
                              QStringLiteral("/checkpoints/step-%1/COMPLETE").arg(stopStep, 8, 10, QChar('0'))));
    QTRY_VERIFY_WITH_TIMEOUT(m_login.cluster().run("squeue", {"-h", "-j", id, "-o", "%T"}).trimmed().isEmpty() ||
                                 m_login.cluster().run("squeue", {"-h", "-j", id, "-o", "%T"}).contains("COMPLETED"),
                             30000);
  }

  // Kill as the app does it (traindeck --kill, JobController's job): the job is cancelled and the
  // run ends "killed", asked by you, not "requeued" (scancel's SIGTERM is not a preemption); the
  // job leaves the queue and the run is usable (not live: Continue, Rename, Trash).
  void killEndsKilledNotRequeued() {
    Launched l = m_login.launch({"strategy.nproc_per_node=1", "schedule.max_steps=1000000", "name=killed job"});
    QVERIFY2(!l.runDir.isEmpty(), "the launcher printed no mirror");
    QTRY_VERIFY_WITH_TIMEOUT(test_support::trainSteps(l.runDir + "/metrics.jsonl").size() >= 3, 240000);
    const QString id = m_login.jobIdOf(l.runDir);
    const auto cancelJob = qScopeGuard([this, id] { m_login.cluster().run("scancel", {id}); });
    QProcess kill;
    kill.start(TRAINDECK_BIN, {"--kill", l.runDir, "--batch", "--known-hosts", m_login.knownHosts()});
    QVERIFY(kill.waitForFinished(180000));
    const QString said = QString::fromUtf8(kill.readAllStandardError());
    QVERIFY2(said.contains("killing"), qPrintable(said.right(3000)));
    QString err;
    QCOMPARE(SlurmLoginNode::finish(l, 120000, &err), 1);  // the launcher follows it to the same end
    const RunInfoReadResult read = readRunInfo(RunPaths{l.runDir.toStdString()});
    QVERIFY2(read.ok(), read.error.c_str());
    QCOMPARE(std::string(toString(read.info.status)), std::string("killed"));
    QCOMPARE(read.info.endCause, EndCause::Asked);
    QVERIFY2(QString::fromStdString(read.info.exitReason).contains("killed from TrainDeck"),
             read.info.exitReason.c_str());
    QVERIFY(!isLive(read.info.status));
    QTRY_VERIFY_WITH_TIMEOUT(
        !m_login.cluster().inQueue(id) ||
            m_login.cluster().run("squeue", {"-h", "-t", "all", "-j", id, "-o", "%T"}).contains("CANCELLED"),
        60000);
    QVERIFY2(SlurmCluster::jobField(m_login.cluster().jobDetails(id), "Restarts").toInt() == 0 ||
                 m_login.cluster().jobDetails(id).isEmpty(),
             "the killed job was requeued");
  }

  // Cancelled by someone else (scancel in a terminal): the trainer takes the SIGTERM for a
  // preemption and says "requeued", but the job does not come back: the run ends "killed",
  // cancelled through Slurm, and says so; the launcher following it ends with it.
  void aCancelFromOutsideEndsCancelledThroughSlurm() {
    Launched l = m_login.launch({"strategy.nproc_per_node=1", "schedule.max_steps=1000000", "name=cancelled job"});
    QVERIFY2(!l.runDir.isEmpty(), "the launcher printed no mirror");
    QTRY_VERIFY_WITH_TIMEOUT(test_support::trainSteps(l.runDir + "/metrics.jsonl").size() >= 3, 240000);
    const QString id = m_login.jobIdOf(l.runDir);
    QTRY_VERIFY2_WITH_TIMEOUT(m_login.cluster().cancelOnce(id),
                              qPrintable(m_login.cluster().lastError() + "\n" + m_login.cluster().logs()), 30000);
    QString err;
    const int code = SlurmLoginNode::finish(l, 180000, &err);
    QVERIFY2(code == 1, qPrintable(err.right(4000)));
    const RunInfoReadResult read = readRunInfo(RunPaths{l.runDir.toStdString()});
    QVERIFY2(read.ok(), read.error.c_str());
    QCOMPARE(std::string(toString(read.info.status)), std::string("killed"));
    QCOMPARE(read.info.endCause, EndCause::Cancelled);
    QVERIFY2(QString::fromStdString(read.info.exitReason).contains("cancelled through Slurm"),
             read.info.exitReason.c_str());
    QVERIFY2(err.contains("cancelled through Slurm"), qPrintable(err.right(3000)));
  }

  // A run that stopped (--stop-at) goes on with `traindeck --continue RUN --on LOGIN` as a Slurm
  // job again (its own target kept): resumed from the checkpoint copied here, the same losses
  // as a run never stopped, every step once, in the same mirror.
  void aStoppedRunContinuesAsASlurmJob() {
    Launched l = m_login.launch({"strategy.nproc_per_node=1", "name=continued job"}, {}, {"--stop-at", "8"});
    QVERIFY2(!l.runDir.isEmpty(), "the launcher printed no mirror");
    QString err;
    QCOMPARE(SlurmLoginNode::finish(l, 300000, &err), 0);
    QCOMPARE(test_support::runStatus(l.runDir), std::string("stopped"));
    const QString firstJob = m_login.jobIdOf(l.runDir);
    Launched c = m_login.continueRun(l.runDir);
    QCOMPARE(c.runDir, l.runDir);
    const int code = SlurmLoginNode::finish(c, 300000, &err);
    if (code != 0) qWarning().noquote() << err.right(4000);
    QCOMPARE(code, 0);
    QVERIFY2(err.contains("Submitted to Slurm through"), qPrintable(err.right(3000)));
    QVERIFY(m_login.jobIdOf(l.runDir) != firstJob);
    QCOMPARE(test_support::runStatus(l.runDir), std::string("finished"));
    const QString differs = lossesDifferFromTheReference(l.runDir);
    QVERIFY2(differs.isEmpty(), qPrintable(differs));
  }

  // The cluster's set-up comes from the account's login profile (SLURM_CONF here, modules at a
  // site): the job's login shell finds sbatch; without one (none), sbatch says it cannot.
  void sbatchIsFoundOnlyThroughTheLoginShell() {
    Launched l = m_login.launch({"target.login_shell=none", "name=no login shell"});
    QVERIFY2(!l.runDir.isEmpty(), "the launcher printed no mirror");
    QString err;
    QCOMPARE(SlurmLoginNode::finish(l, 120000, &err), 1);
    QVERIFY2(err.contains("sbatch refused the job") && err.contains("configuration"), qPrintable(err.right(3000)));
    QVERIFY(m_login.jobIdOf(l.runDir).isEmpty());
  }

  // A job name and a work folder on the cluster holding shell syntax, quotes, Slurm's filename
  // patterns and Chinese: the job runs as asked, and nothing in the names is run, here or there.
  void namesHoldingShellSyntaxRunNothing() {
    const QString hostileWork =
        QFileInfo(m_login.work()).path() + QStringLiteral("/w $(touch PWNED1) 'q' %j `touch PWNED2` 工作");
    QVERIFY(QDir().mkpath(hostileWork));
    Launched l = m_login.launch({"strategy.nproc_per_node=1", "schedule.max_steps=3",
                                 "name=x$(touch PWNED3); `touch PWNED4` 'q' %j 中文"},
                                hostileWork);
    QVERIFY2(!l.runDir.isEmpty(), "the launcher printed no mirror");
    QString err;
    const int code = SlurmLoginNode::finish(l, 300000, &err);
    QVERIFY2(code == 0, qPrintable(err.right(4000)));
    QCOMPARE(test_support::runStatus(l.runDir), std::string("finished"));
    const QString remote = hostileWork + "/runs/" + QFileInfo(l.runDir).fileName();
    QVERIFY2(QFileInfo::exists(remote + "/run.json"), qPrintable(remote));
    QCOMPARE(sha256Of(l.runDir + "/metrics.jsonl"), sha256Of(remote + "/metrics.jsonl"));
    for (const QString& dir : {QDir::currentPath(), m_login.local(""), QFileInfo(m_login.work()).path(), hostileWork,
                               remote, QDir::homePath(), m_login.cluster().dir(), QString("/tmp")})
      for (int i = 1; i <= 4; ++i) QVERIFY2(!QFile::exists(QString("%1/PWNED%2").arg(dir).arg(i)), qPrintable(dir));
  }

  // The login node's partitions (its probe's sinfo) say it before anything is queued.
  void aJobTooLargeForItsPartitionIsNotSubmitted() {
    Launched l = m_login.launch({"strategy.nnodes=3"});
    QVERIFY2(!l.runDir.isEmpty(), "the launcher printed no mirror");
    QString err;
    QCOMPARE(SlurmLoginNode::finish(l, 120000, &err), 1);
    QVERIFY2(err.contains("Not submitted: this job can never run in partition debug"), qPrintable(err.right(3000)));
    QVERIFY(m_login.jobIdOf(l.runDir).isEmpty());
    QVERIFY(m_login.cluster().run("squeue", {"-h"}).trimmed().isEmpty());  // nothing queued or running
  }

  // One the partitions cannot foresee (it depends on a job that failed): Slurm takes it and keeps
  // it pending for ever (DependencyNeverSatisfied); the app cancels it and says why, within a
  // minute. (A third node of two is refused by sbatch itself from Slurm 23 on, and said so.)
  void aJobThatCanNeverRunIsCancelledAndSaysWhy() {
    bool ok = false;
    const QString failed =
        m_login.cluster().run("sbatch", {"--parsable", "--output=/dev/null", "--wrap", "false"}, &ok).trimmed();
    QVERIFY2(ok && !failed.isEmpty(), qPrintable(m_login.cluster().lastError()));
    QTRY_VERIFY_WITH_TIMEOUT(
        m_login.cluster().run("squeue", {"-h", "-t", "all", "-j", failed, "-o", "%T"}).contains("FAILED"), 30000);
    Launched l = m_login.launch({"target.sbatch_args=[--dependency=afterok:" + failed + "]"});
    QVERIFY2(!l.runDir.isEmpty(), "the launcher printed no mirror");
    QString err;
    const int code = SlurmLoginNode::finish(l, 120000, &err);
    QCOMPARE(code, 1);
    QVERIFY2(err.contains("can never run as asked") && err.contains("depends on a job that can no longer run"),
             qPrintable(err.right(3000)));
    const QString id = m_login.jobIdOf(l.runDir);
    QVERIFY(!id.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(!m_login.cluster().run("squeue", {"-h", "-j", id, "-o", "%T"}).contains("PENDING"), 20000);
    // The minute counts from the submission, by Slurm's own clock (the launch before it, ssh and
    // uploads, takes what a loaded machine makes it take).
    const QString job = m_login.cluster().jobDetails(id);
    const auto timeOf = [&](const QString& field) {
      return QDateTime::fromString(SlurmCluster::jobField(job, field), Qt::ISODate);
    };
    const QDateTime submitted = timeOf("SubmitTime"), ended = timeOf("EndTime");
    QVERIFY2(submitted.isValid() && ended.isValid(), qPrintable(job));
    QVERIFY2(submitted.secsTo(ended) < 60, qPrintable("it took more than a minute to say it:\n" + job));
  }
};

QTEST_GUILESS_MAIN(SlurmRunTest)
#include "slurm_run_test.moc"
