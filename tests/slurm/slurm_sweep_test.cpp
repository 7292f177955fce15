// A sweep on the real Slurm test cluster through its login node (docs/sweeps.md, places and
// slots): `traindeck --sweep --slots 2` with a base job whose target is the cluster runs each
// trial as its own Slurm job, never more than two in the queue at once (the runner's slots
// throttle the submissions as `--array=...%2` would), and every trial ends finished, once; and
// `--on HOST=2` sends a local job's trials to that host over SSH, two at once, beside this
// machine's slot.
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

#include "slurm_login_node.h"

using namespace traindeck;
using traindeck::test::SlurmLoginNode;

namespace {
constexpr int kSweepMs = 400000;
}  // namespace

class SlurmSweepTest : public QObject {
  Q_OBJECT
  SlurmLoginNode m_login;

  // The queue, every job's state and the batch outputs on the cluster: what a failure needs.
  QString clusterSays() {
    QString text = "squeue:\n" + m_login.cluster().run("squeue", {"-h", "-t", "all", "-o", "%i %T %r"});
    QDirIterator outputs(m_login.work(), {"slurm-*.out"}, QDir::Files, QDirIterator::Subdirectories);
    while (outputs.hasNext()) {
      QFile f(outputs.next());
      if (f.open(QIODevice::ReadOnly)) text += "\n" + f.fileName() + ":\n" + QString::fromUtf8(f.readAll()).right(1500);
    }
    return text + "\n" + m_login.cluster().logs();
  }

 private slots:
  void initTestCase() {
    const QString why = m_login.start(/*maxSteps=*/10, /*checkpointEvery=*/0);
    QVERIFY2(why.isEmpty(), qPrintable(why));
  }

  void trialsAreSlurmJobsTwoAtATime() {
    QFile job(m_login.local("job/job.yaml"));
    QVERIFY(job.open(QIODevice::Append));
    job.write(QString("target: {kind: slurm, host: '%1', identity: '%2', remote_dir: '%3'}\n")
                  .arg(m_login.server().spec(), m_login.server().clientKey(), m_login.work())
                  .toUtf8());
    job.close();
    QFile sweep(m_login.local("job/sweep.yaml"));
    QVERIFY(sweep.open(QIODevice::WriteOnly));
    sweep.write("base: job.yaml\nmethod: grid\nparameters:\n  optimizer.lr: [1e-3, 2e-3, 3e-3, 4e-3]\nmetric: loss\n");
    sweep.close();

    SlurmLoginNode::Launched l = m_login.run({"--sweep", m_login.local("job/sweep.yaml"), "--slots", "2", "--runs-root",
                                              m_login.local("runs"), "--known-hosts", m_login.knownHosts()});
    QVERIFY2(l.runDir.endsWith("-sweep"), qPrintable(l.runDir));
    int most = 0, seen = 0;
    QElapsedTimer clock;
    clock.start();
    while (l.process->state() != QProcess::NotRunning && clock.elapsed() < kSweepMs) {
      const QStringList queued = m_login.cluster().run("squeue", {"-h", "-o", "%i"}).split('\n', Qt::SkipEmptyParts);
      most = std::max(most, static_cast<int>(queued.size()));
      seen += queued.isEmpty() ? 0 : 1;
      l.process->waitForFinished(200);
    }
    const QString out = QString::fromUtf8(l.process->readAllStandardOutput());
    QString err;
    const int code = SlurmLoginNode::finish(l, 1000, &err);
    QVERIFY2(code == 0, qPrintable(QString("exit %1\n%2\n%3\n%4").arg(code).arg(out, err.right(3000), clusterSays())));
    QVERIFY2(err.contains("Sweep ended: every trial has ended"), qPrintable(err));
    qInfo().noquote() << out;
    QVERIFY2(seen > 0 && most >= 1, "no trial job was seen in the queue");
    QVERIFY2(most <= 2, qPrintable(QString("%1 trial jobs in the queue at once").arg(most)));

    QProcess status;
    status.start(TRAINDECK_BIN, {"--sweep-status", l.runDir});
    QVERIFY(status.waitForFinished(30000));
    const QList<QByteArray> lines = status.readAllStandardOutput().split('\n');
    QStringList runs;
    for (const QByteArray& line : lines) {
      if (line.isEmpty()) continue;
      const QJsonObject trial = QJsonDocument::fromJson(line).object();
      QVERIFY2(trial.value("state").toString() == "finished", line.constData());
      const QString run = QDir(l.runDir).absoluteFilePath(trial.value("run").toString());
      QVERIFY2(!m_login.jobIdOf(run).isEmpty(), qPrintable(run + " has no Slurm job"));
      runs << run;
    }
    QCOMPARE(runs.size(), 4);
    runs.removeDuplicates();
    QCOMPARE(runs.size(), 4);
  }

  // A base job for this machine, its trials sent to the login node as an SSH host with two
  // slots (`--on HOST=2`), beside one slot here: the sweep spreads over both places, and each
  // trial on the host takes its own part of it there (`run --slot I/2`, said in its log).
  void trialsGoToAnSshHostGivenOnTheCommandLine() {
    QFile job(m_login.local("job/here.yaml"));
    QVERIFY(job.open(QIODevice::WriteOnly));
    QFile base(m_login.local("job/job.yaml"));
    QVERIFY(base.open(QIODevice::ReadOnly));
    for (const QByteArray& line : base.readAll().split('\n'))
      if (!line.startsWith("target:")) job.write(line + "\n");
    job.write("target: {remote_dir: '" + m_login.work().toUtf8() + "'}\n");
    job.close();
    QFile sweep(m_login.local("job/ssh-sweep.yaml"));
    QVERIFY(sweep.open(QIODevice::WriteOnly));
    // ASHA at step 4 of 10: the best trial goes on (or is promoted) from its checkpoint, which
    // only a slot of its own kind can take (a run of this machine here, the host's run there).
    sweep.write(
        "base: here.yaml\nmethod: grid\nparameters:\n  optimizer.lr: [1e-3, 2e-3, 3e-3]\nmetric: loss\n"
        "early_stopping: {method: asha, unit: steps, rungs: [4], reduction_factor: 3}\n");
    sweep.close();
    SlurmLoginNode::Launched l =
        m_login.run({"--sweep", m_login.local("job/ssh-sweep.yaml"), "--slots", "1", "--on",
                     m_login.server().spec() + "=2", "--identity", m_login.server().clientKey(), "--runs-root",
                     m_login.local("ssh-runs"), "--known-hosts", m_login.knownHosts()});
    QString err;
    const int code = SlurmLoginNode::finish(l, kSweepMs, &err);
    QVERIFY2(code == 0, qPrintable(QString("exit %1\n%2").arg(code).arg(err.right(3000))));
    QProcess status;
    status.start(TRAINDECK_BIN, {"--sweep-status", l.runDir});
    QVERIFY(status.waitForFinished(30000));
    int onTheHost = 0, here = 0, finished = 0, pruned = 0;
    QSet<QString> hostSlots;
    for (const QByteArray& line : status.readAllStandardOutput().split('\n')) {
      if (line.isEmpty()) continue;
      const QJsonObject trial = QJsonDocument::fromJson(line).object();
      const QString state = trial.value("state").toString();
      QVERIFY2(state == "finished" || state == "pruned", line.constData());
      (state == "finished" ? finished : pruned) += 1;
      const QString run = QDir(l.runDir).absoluteFilePath(trial.value("run").toString());
      const bool remote = QFile::exists(run + "/remote.json");
      (remote ? onTheHost : here) += 1;
      QFile log(run + "/supervisor.log");
      QVERIFY2(log.open(QIODevice::ReadOnly), qPrintable(run));
      const QString said = QString::fromUtf8(log.readAll());
      const QRegularExpressionMatch slot =
          QRegularExpression("slot (\\d)/2 on this machine: OMP_NUM_THREADS=").match(said);
      QVERIFY2(slot.hasMatch() == remote, qPrintable(said.right(2000)));
      if (remote) hostSlots.insert(slot.captured(1));
    }
    QCOMPARE(onTheHost + here, 3);
    // The three slots were free at the start: one trial here, two on the host at once.
    QCOMPARE(onTheHost, 2);
    QCOMPARE(hostSlots, (QSet<QString>{"0", "1"}));
    // Trials that go on past the rung (those best when they reach it; which, depends on the
    // order they arrive) resume from their checkpoint at a slot of their own kind: a run of this
    // machine here (its log never says a host's slot), the host's runs on the host.
    QVERIFY2(finished >= 1 && finished + pruned == 3,
             qPrintable(QString::fromUtf8(l.process->readAllStandardOutput())));
  }
};

QTEST_GUILESS_MAIN(SlurmSweepTest)
#include "slurm_sweep_test.moc"
