// A sweep on the real Slurm test cluster through its login node (docs/sweeps.md, places and
// slots): `traindeck --sweep --slots 2` with a base job whose target is the cluster submits its
// four trials as one Slurm job array with a throttle of 2 (`--array=0-3%2`): never more than two
// of them run at once, and every trial ends finished, once, as its own task; and
// `--on HOST=2` sends a local job's trials to that host over SSH, two at once, beside this
// machine's slot.
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
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

  // job/<name>: the base job.yaml with `target` for its target line.
  bool writeJob(const QString& name, const QByteArray& target) {
    QFile job(m_login.local("job/" + name)), base(m_login.local("job/job.yaml"));
    if (!job.open(QIODevice::WriteOnly) || !base.open(QIODevice::ReadOnly)) return false;
    for (const QByteArray& line : base.readAll().split('\n'))
      if (!line.startsWith("target:")) job.write(line + "\n");
    return job.write(target + "\n") > 0;
  }
  bool writeFile(const QString& name, const QByteArray& text) {
    QFile f(m_login.local(name));
    return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
  }
  QByteArray slurmTarget() {
    return QString("target: {kind: slurm, host: '%1', identity: '%2', remote_dir: '%3'}")
        .arg(m_login.server().spec(), m_login.server().clientKey(), m_login.work())
        .toUtf8();
  }
  // The run.json, on the cluster, of the sweep's trial named `trial` (from --sweep-status).
  QString runJsonThere(const QString& sweepDir, const QString& trial) {
    QProcess status;
    status.start(TRAINDECK_BIN, {"--sweep-status", sweepDir});
    if (!status.waitForFinished(30000)) return "--sweep-status did not end";
    for (const QByteArray& line : status.readAllStandardOutput().split('\n')) {
      const QJsonObject t = QJsonDocument::fromJson(line).object();
      if (t.value("trial").toString() != trial) continue;
      QFile f(m_login.remoteRunDir(QDir(sweepDir).absoluteFilePath(t.value("run").toString())) + "/run.json");
      return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : "no run.json at " + f.fileName();
    }
    return "no trial " + trial;
  }
  // A grid over optimizer.lr (`lrs`) of a base job whose target is the cluster, run to its end
  // by the CLI with `args` (--slots, --pack): what it printed, the most trial jobs seen running
  // at once, its trials as --sweep-status prints them; `failure` says what went wrong, if it did.
  struct Swept {
    QString out, runDir, failure;
    int most = 0;
    QList<QJsonObject> trials;
  };
  Swept sweepOnSlurm(const QString& name, const QString& lrs, const QStringList& args) {
    Swept swept;
    if (!writeJob(name + "-job.yaml", slurmTarget()) ||
        !writeFile("job/" + name + "-sweep.yaml", QString("base: %1-job.yaml\nmethod: grid\nparameters:\n  "
                                                          "optimizer.lr: [%2]\nmetric: loss\n")
                                                      .arg(name, lrs)
                                                      .toUtf8())) {
      swept.failure = "could not write the job and sweep " + name;
      return swept;
    }
    SlurmLoginNode::Launched l =
        m_login.run(QStringList{"--sweep", m_login.local("job/" + name + "-sweep.yaml")} + args +
                    QStringList{"--runs-root", m_login.local(name + "-runs"), "--known-hosts", m_login.knownHosts()});
    swept.runDir = l.runDir;
    swept.most = mostRunningUntilDone(l);
    swept.out = QString::fromUtf8(l.process->readAllStandardOutput());
    QString err;
    if (const int code = SlurmLoginNode::finish(l, 1000, &err); code != 0)
      swept.failure = QString("exit %1\n%2\n%3\n%4").arg(code).arg(swept.out, err.right(3000), clusterSays());
    QProcess status;
    status.start(TRAINDECK_BIN, {"--sweep-status", swept.runDir});
    status.waitForFinished(30000);
    for (const QByteArray& line : status.readAllStandardOutput().split('\n'))
      if (!line.isEmpty()) swept.trials << QJsonDocument::fromJson(line).object();
    return swept;
  }
  // Whether a mirror's record says its run shares its Slurm job with others.
  static bool isPacked(const QString& run) {
    QFile record(run + "/remote.json");
    return record.open(QIODevice::ReadOnly) &&
           QJsonDocument::fromJson(record.readAll()).object().value("slurm_packed").toBool();
  }
  // What the run's Slurm output files on the cluster say.
  QString outputThere(const QString& run) {
    QString said;
    QDirIterator outputs(m_login.remoteRunDir(run), {"slurm-*.out"}, QDir::Files);
    while (outputs.hasNext()) {
      QFile f(outputs.next());
      if (f.open(QIODevice::ReadOnly)) said += QString::fromUtf8(f.readAll());
    }
    return said;
  }
  // The most trial jobs running at once (squeue -r: an array's tasks one by one) until the
  // sweep's process ends.
  int mostRunningUntilDone(SlurmLoginNode::Launched& l) {
    int most = 0;
    QElapsedTimer clock;
    clock.start();
    while (l.process->state() != QProcess::NotRunning && clock.elapsed() < kSweepMs) {
      const QStringList running =
          m_login.cluster().run("squeue", {"-h", "-r", "-t", "running", "-o", "%i"}).split('\n', Qt::SkipEmptyParts);
      most = std::max(most, static_cast<int>(running.size()));
      l.process->waitForFinished(200);
    }
    return most;
  }

 private slots:
  void initTestCase() {
    const QString why = m_login.start(/*maxSteps=*/10, /*checkpointEvery=*/0);
    QVERIFY2(why.isEmpty(), qPrintable(why));
  }

  void trialsAreAJobArrayTwoAtATime() {
    QVERIFY(writeJob("slurm-job.yaml", slurmTarget()));
    QVERIFY(writeFile("job/sweep.yaml",
                      "base: slurm-job.yaml\nmethod: grid\nparameters:\n  optimizer.lr: [1e-3, 2e-3, "
                      "3e-3, 4e-3]\nmetric: loss\n"));
    SlurmLoginNode::Launched l = m_login.run({"--sweep", m_login.local("job/sweep.yaml"), "--slots", "2", "--runs-root",
                                              m_login.local("runs"), "--known-hosts", m_login.knownHosts()});
    QVERIFY2(l.runDir.endsWith("-sweep"), qPrintable(l.runDir));
    const int most = mostRunningUntilDone(l);
    const QString out = QString::fromUtf8(l.process->readAllStandardOutput());
    QString err;
    const int code = SlurmLoginNode::finish(l, 1000, &err);
    QVERIFY2(code == 0, qPrintable(QString("exit %1\n%2\n%3\n%4").arg(code).arg(out, err.right(3000), clusterSays())));
    QVERIFY2(err.contains("Sweep ended: every trial has ended"), qPrintable(err));
    qInfo().noquote() << out;
    QVERIFY2(most >= 1, "no trial job was seen running");
    QVERIFY2(most <= 2, qPrintable(QString("%1 trial jobs ran at once").arg(most)));

    QProcess status;
    status.start(TRAINDECK_BIN, {"--sweep-status", l.runDir});
    QVERIFY(status.waitForFinished(30000));
    const QList<QByteArray> lines = status.readAllStandardOutput().split('\n');
    QStringList runs, tasks;
    QSet<QString> arrays;
    int leaders = 0;  // the run that submitted the array keeps its script
    for (const QByteArray& line : lines) {
      if (line.isEmpty()) continue;
      const QJsonObject trial = QJsonDocument::fromJson(line).object();
      QVERIFY2(trial.value("state").toString() == "finished", line.constData());
      const QString run = QDir(l.runDir).absoluteFilePath(trial.value("run").toString());
      const QString job = m_login.jobIdOf(run);
      QVERIFY2(job.contains(QRegularExpression("^[0-9]+_[0-3]$")), qPrintable(run + " is no array task: " + job));
      arrays.insert(job.section('_', 0, 0));
      tasks << job;
      // Its task's output in its own run folder there, through the array's link, and brought home
      // with the run (named by the id the run records).
      QVERIFY2(!QDir(m_login.remoteRunDir(run)).entryList({"slurm-*.out"}).isEmpty(),
               qPrintable(m_login.remoteRunDir(run)));
      QVERIFY2(QFile::exists(run + "/slurm-" + job + ".out"), qPrintable(QDir(run).entryList().join(' ')));
      leaders += QFile::exists(run + "/slurm-array.sbatch") ? 1 : 0;
      runs << run;
    }
    QCOMPARE(runs.size(), 4);
    runs.removeDuplicates();
    QCOMPARE(runs.size(), 4);
    QCOMPARE(arrays.size(), 1);  // one submission
    QCOMPARE(leaders, 1);
    tasks.removeDuplicates();
    QCOMPARE(tasks.size(), 4);
    QVERIFY2(out.contains("in a Slurm job array (2 of its trials at a time)"), qPrintable(out));
  }

  // `--pack 2`: the four trials go two to a job (a job array of two tasks, one at a time with
  // --slots 1), the two of a task at once in its one allocation, each its slot of it (`slot k/2`
  // in its output); every trial finishes once, as an ordinary run, recorded as packed.
  void trialsArePackedTwoToAJob() {
    const Swept swept = sweepOnSlurm("pack", "1e-3, 2e-3, 3e-3, 4e-3", {"--slots", "1", "--pack", "2"});
    QVERIFY2(swept.failure.isEmpty(), qPrintable(swept.failure));
    QVERIFY2(swept.most == 1, qPrintable(QString("%1 trial jobs ran at once\n%2").arg(swept.most).arg(swept.out)));
    QCOMPARE(swept.out.count("in a Slurm job array, 2 trials to a job (1 jobs at a time), to the end"), 4);
    QMap<QString, QStringList> slotsByJob;
    for (const QJsonObject& trial : swept.trials) {
      QVERIFY2(trial.value("state").toString() == "finished", qPrintable(swept.out));
      const QString run = QDir(swept.runDir).absoluteFilePath(trial.value("run").toString());
      QVERIFY2(isPacked(run), qPrintable(run));
      QVERIFY2(QFile::exists(run + "/slurm-" + m_login.jobIdOf(run) + ".out"),
               qPrintable(QDir(run).entryList().join(' ')));
      const QString said = outputThere(run);
      const QRegularExpressionMatch slot =
          QRegularExpression("slot (\\d)/2 on this machine: OMP_NUM_THREADS=1").match(said);
      QVERIFY2(slot.hasMatch(), qPrintable(run + ":\n" + said.right(2000)));
      slotsByJob[m_login.jobIdOf(run)] << slot.captured(1);
    }
    QCOMPARE(slotsByJob.size(), 2);  // two jobs, two trials each, in slots 0 and 1
    for (auto it = slotsByJob.begin(); it != slotsByJob.end(); ++it) {
      it.value().sort();
      QCOMPARE(it.value(), (QStringList{"0", "1"}));
    }
  }

  // A pack no node can hold (three trials of a core each on nodes of two cores): Slurm refuses
  // the job array, and the same trials go again a task each (not alone, as a crash's retry
  // would); every one finishes, none packed, none counted as a crash.
  void aPackSlurmCannotHoldGoesATrialToATask() {
    const Swept swept = sweepOnSlurm("big-pack", "1e-3, 2e-3, 3e-3", {"--slots", "2", "--pack", "3"});
    QVERIFY2(swept.failure.isEmpty(), qPrintable(swept.failure));
    QVERIFY2(swept.most <= 2, qPrintable(QString("%1 jobs at once\n%2").arg(swept.most).arg(swept.out)));
    QVERIFY2(!swept.out.contains("crashed"), qPrintable(swept.out));
    QCOMPARE(swept.trials.size(), 3);
    for (const QJsonObject& trial : swept.trials) {
      QVERIFY2(trial.value("state").toString() == "finished", qPrintable(swept.out));
      const QString run = QDir(swept.runDir).absoluteFilePath(trial.value("run").toString());
      QVERIFY2(!isPacked(run), qPrintable(run));
      QVERIFY2(m_login.jobIdOf(run).contains('_'), qPrintable(run + ": " + m_login.jobIdOf(run)));
    }
  }

  // Two trials packed in one job, one short and one long: the short one is seen ended (its run
  // said so) while the job lives on with the long one, not when the job ends: when the sweep
  // says it finished, the long one's run is still training there.
  void aPackedTrialIsOverWhenItsRunIsNotWhenItsJobIs() {
    QVERIFY(writeJob("pair-job.yaml", slurmTarget()));
    QVERIFY(writeFile("job/pair-sweep.yaml",
                      "base: pair-job.yaml\nmethod: grid\nparameters:\n  schedule.max_steps: [4, 3000]\n"
                      "metric: loss\n"));
    SlurmLoginNode::Launched l =
        m_login.run({"--sweep", m_login.local("job/pair-sweep.yaml"), "--slots", "1", "--pack", "2", "--runs-root",
                     m_login.local("pair-runs"), "--known-hosts", m_login.knownHosts()});
    QElapsedTimer clock;
    clock.start();
    QString out, longOneThen;  // the long trial's run.json there when the short one was said finished
    while (l.process->state() != QProcess::NotRunning && clock.elapsed() < kSweepMs) {
      l.process->waitForReadyRead(200);
      while (l.process->canReadLine()) {
        const QString line = QString::fromUtf8(l.process->readLine());
        out += line;
        if (line.startsWith("max_steps=4: finished")) longOneThen = runJsonThere(l.runDir, "max_steps=3000");
      }
    }
    out += QString::fromUtf8(l.process->readAllStandardOutput());
    QString err;
    const int code = SlurmLoginNode::finish(l, 1000, &err);
    QVERIFY2(code == 0, qPrintable(QString("exit %1\n%2\n%3\n%4").arg(code).arg(out, err.right(3000), clusterSays())));
    QVERIFY2(out.contains("max_steps=3000: finished"), qPrintable(out));
    QVERIFY2(longOneThen.contains(QRegularExpression("\"status\": *\"running\"")),
             qPrintable("the long trial's run.json when the short one was said finished: " + longOneThen + "\n" + out));
  }

  // ASHA over the array: the four trials go to rung 0 (step 4) as one array; those that go on
  // from their checkpoint do it each as a Slurm job of its own, while fewer than two of the
  // sweep's trials are going on; the others stay pruned at their checkpoint, as array tasks.
  void anArraysTrialsGoOnAloneFromTheirRung() {
    QVERIFY(writeJob("asha-job.yaml", slurmTarget()));
    QVERIFY(writeFile("job/asha-sweep.yaml",
                      "base: asha-job.yaml\nmethod: grid\nparameters:\n  optimizer.lr: [1e-3, 2e-3, 3e-3, 4e-3]\n"
                      "metric: loss\nearly_stopping: {method: asha, unit: steps, rungs: [4], reduction_factor: 2}\n"));
    SlurmLoginNode::Launched l =
        m_login.run({"--sweep", m_login.local("job/asha-sweep.yaml"), "--slots", "2", "--runs-root",
                     m_login.local("asha-runs"), "--known-hosts", m_login.knownHosts()});
    const int most = mostRunningUntilDone(l);
    const QString out = QString::fromUtf8(l.process->readAllStandardOutput());
    QString err;
    const int code = SlurmLoginNode::finish(l, 1000, &err);
    QVERIFY2(code == 0, qPrintable(QString("exit %1\n%2\n%3\n%4").arg(code).arg(out, err.right(3000), clusterSays())));
    QVERIFY2(most <= 2, qPrintable(QString("%1 trial jobs ran at once\n%2").arg(most).arg(out)));
    QProcess status;
    status.start(TRAINDECK_BIN, {"--sweep-status", l.runDir});
    QVERIFY(status.waitForFinished(30000));
    int finished = 0, pruned = 0;
    for (const QByteArray& line : status.readAllStandardOutput().split('\n')) {
      if (line.isEmpty()) continue;
      const QJsonObject trial = QJsonDocument::fromJson(line).object();
      const QString state = trial.value("state").toString();
      QVERIFY2(state == "finished" || state == "pruned", line.constData());
      const QString run = QDir(l.runDir).absoluteFilePath(trial.value("run").toString());
      const QString job = m_login.jobIdOf(run);
      if (state == "finished") {
        ++finished;
        QVERIFY2(!job.contains('_'), qPrintable(run + " went on as a task, not alone: " + job + "\n" + out));
      } else {
        ++pruned;
        QFile record(run + "/remote.json");
        record.open(QIODevice::ReadOnly);
        QVERIFY2(job.contains('_'),
                 qPrintable(run + " is no array task: " + job + "\n" + record.readAll() + "\n" + out));
      }
    }
    // Which go on depends on the order they reach the rung (ASHA decides as each arrives): the
    // best one does whatever the order; each one that went on did it alone.
    QVERIFY2(finished >= 1 && finished + pruned == 4, qPrintable(out));
    QCOMPARE(out.count("in a Slurm job array (2 of its trials at a time), to rung 0"), 4);
    QCOMPARE(out.count("continues on the job's target, to the end"), finished);
  }

  // The sweep stops (its wall time spent) while its array's tasks wait behind the throttle of 1:
  // the waiting ones are cancelled (a signal to a waiting task would reach the running one) and
  // are new trials again, no crash counted; the running one stops at a checkpoint or ends. Or it
  // stops sooner, while the trials' starts are still on their way to the cluster (which of the
  // two a wall time meets depends on how fast the link is; under load the sweep once crashed
  // there, its starts ending while it stopped them): the same holds.
  void stoppingWhileTasksWaitStartsNothingTwiceAndCountsNoCrash_data() {
    QTest::addColumn<QByteArray>("wallTime");
    QTest::newRow("tasks waiting") << QByteArray("2s");
    QTest::newRow("starts on their way") << QByteArray("1s");
  }
  void stoppingWhileTasksWaitStartsNothingTwiceAndCountsNoCrash() {
    QFETCH(QByteArray, wallTime);
    const QString name = "stop-" + wallTime;
    QVERIFY(writeJob(name + "-job.yaml", slurmTarget()));
    QVERIFY(writeFile("job/" + name + "-sweep.yaml", "base: " + name.toUtf8() +
                                                         "-job.yaml\nmethod: grid\nparameters:\n  optimizer.lr: [1e-3, "
                                                         "2e-3, 3e-3]\nmetric: loss\nbudget: {wall_time: " +
                                                         wallTime + "}\n"));
    SlurmLoginNode::Launched l =
        m_login.run({"--sweep", m_login.local("job/" + name + "-sweep.yaml"), "--slots", "1", "--runs-root",
                     m_login.local(name + "-runs"), "--known-hosts", m_login.knownHosts()});
    const int most = mostRunningUntilDone(l);
    const QString out = QString::fromUtf8(l.process->readAllStandardOutput());
    QString err;
    const int code = SlurmLoginNode::finish(l, 1000, &err);
    QVERIFY2(code == 0, qPrintable(QString("exit %1\n%2\n%3\n%4").arg(code).arg(out, err.right(3000), clusterSays())));
    QVERIFY2(most <= 1, qPrintable(out));
    QProcess status;
    status.start(TRAINDECK_BIN, {"--sweep-status", l.runDir});
    QVERIFY(status.waitForFinished(30000));
    int queued = 0;
    for (const QByteArray& line : status.readAllStandardOutput().split('\n')) {
      if (line.isEmpty()) continue;
      const QString state = QJsonDocument::fromJson(line).object().value("state").toString();
      QVERIFY2(state == "queued" || state == "finished", qPrintable(line + "\n" + out));
      queued += state == "queued" ? 1 : 0;
    }
    // (How many of the three finished before the wall time depends on the machine's speed: a
    // tiny trial may end within it.) Each one that did not is new again, said once.
    QVERIFY2(queued >= 1, qPrintable(out));
    QCOMPARE(out.count("stopped before it started"), queued);
    QVERIFY2(!out.contains("crashed"), qPrintable(out));
  }

  // A base job for this machine, its trials sent to the login node as an SSH host with two
  // slots (`--on HOST=2`), beside one slot here: the sweep spreads over both places, and each
  // trial on the host takes its own part of it there (`run --slot I/2`, said in its log).
  void trialsGoToAnSshHostGivenOnTheCommandLine() {
    QVERIFY(writeJob("here.yaml", "target: {remote_dir: '" + m_login.work().toUtf8() + "'}"));
    // ASHA at step 4 of 10: the best trial goes on (or is promoted) from its checkpoint, which
    // only a slot of its own kind can take (a run of this machine here, the host's run there).
    QVERIFY(writeFile("job/ssh-sweep.yaml",
                      "base: here.yaml\nmethod: grid\nparameters:\n  optimizer.lr: [1e-3, 2e-3, 3e-3]\nmetric: loss\n"
                      "early_stopping: {method: asha, unit: steps, rungs: [4], reduction_factor: 3}\n"));
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
