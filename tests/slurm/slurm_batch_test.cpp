// The batch script of a Slurm run (slurmBatchScript), submitted to the test's real cluster with a
// stand-in trainer that writes down how it was started: one supervisor per node, node ranks from
// SLURM_NODEID, the first node's address as the master, --resume after a requeue, and a run folder
// whose name holds shell syntax and Slurm's filename patterns reaches the trainer as it is, with
// nothing run. Values an #SBATCH line cannot carry are refused with a sentence. The helper's
// build-job builds the trainer (a stand-in's sources) as a job (target.build: job).
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>
#include <tuple>

#include "slurm_batch.h"
#include "slurm_cluster.h"

using namespace traindeck;
using traindeck::test::SlurmCluster;

class SlurmBatchTest : public QObject {
  Q_OBJECT
  SlurmCluster m_cluster;
  QString m_fake;

  static SlurmPlace place(const QString& partition) {
    SlurmPlace p;
    p.partition = partition;
    p.signalSeconds = 60;
    return p;
  }
  static SlurmStart start(const QString& trainBinary, const QString& runDir, int nodes, const QStringList& args = {}) {
    SlurmStart s;
    s.jobName = "tiny; job";
    s.trainBinary = trainBinary;
    s.configPath = "/shared/job.yaml";
    s.runDir = runDir;
    s.nodes = nodes;
    s.masterPort = 29511;
    s.extraArgs = args;
    return s;
  }
  static QString read(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
  }
  QString submit(const QString& script, const QString& dir) {
    const QString path = QDir(dir).filePath("slurm.sbatch");
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return {};
    file.write(script.toUtf8());
    file.close();
    bool ok = false;
    const QString id = m_cluster.run("sbatch", {"--parsable", "--chdir", m_cluster.dir(), path}, &ok).trimmed();
    return ok ? id : QString();
  }

 private slots:
  void initTestCase() {
    if (const QString missing = SlurmCluster::missingPackage(); !missing.isEmpty())
      QFAIL(qPrintable("install " + missing + " (packaging/install-deps.sh does) to run the Slurm tests"));
    const QString why = m_cluster.start();
    QVERIFY2(why.isEmpty(), qPrintable(why));
    // The stand-in: its arguments one per line, per node and start; the first start waits (to be requeued).
    m_fake = QDir(m_cluster.dir()).filePath("fake-train");
    QFile fake(m_fake);
    QVERIFY(fake.open(QIODevice::WriteOnly));
    fake.write(
        "#!/bin/sh\n"
        "while [ $# -gt 0 ]; do [ \"$1\" = --run-dir ] && run=$2; printf '%s\\n' \"$1\" >> "
        "\"$TRAINDECK_ARGS.$SLURM_NODEID.${SLURM_RESTART_COUNT:-0}\"; shift; done\n"
        "[ -n \"${WAIT_FIRST:-}\" ] && [ \"${SLURM_RESTART_COUNT:-0}\" = 0 ] && sleep 300\n"
        "exit 0\n");
    fake.close();
    fake.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
  }

  void oneSupervisorPerNodeWithItsRank() {
    const QString run = QDir(m_cluster.dir()).filePath("runs/r 'x' $(touch PWNED) %j");
    QVERIFY(QDir().mkpath(run));
    qputenv("TRAINDECK_ARGS", QDir(m_cluster.dir()).filePath("args-a").toUtf8());  // sbatch hands it on
    QString error;
    const QString script =
        slurmBatchScript(place("debug"), start(m_fake, run, 2, {"--set", "name=$(touch PWNED2)"}), &error);
    QVERIFY2(!script.isEmpty(), qPrintable(error));
    const QString id = submit(script, run);
    QVERIFY2(!id.isEmpty(), qPrintable(m_cluster.logs()));
    QTRY_VERIFY2_WITH_TIMEOUT(!m_cluster.inQueue(id), qPrintable(m_cluster.logs()), 60000);
    for (int node = 0; node < 2; ++node) {
      const QStringList args =
          read(QDir(m_cluster.dir()).filePath(QStringLiteral("args-a.%1.0").arg(node))).split('\n');
      QVERIFY2(args.size() > 10, qPrintable(args.join(' ') + read(run + "/slurm-" + id + ".out")));
      QCOMPARE(args.value(args.indexOf("--run-dir") + 1), run);
      QCOMPARE(args.value(args.indexOf("--node-rank") + 1), QString::number(node));
      QCOMPARE(args.value(args.indexOf("--nnodes") + 1), QString("2"));
      QCOMPARE(args.value(args.indexOf("--master-addr") + 1), QString("127.0.0.1"));
      QCOMPARE(args.value(args.indexOf("--master-port") + 1), QString("29511"));
      QCOMPARE(args.value(args.indexOf("--set") + 1), QString("name=$(touch PWNED2)"));
      QVERIFY(!args.contains("--resume"));
    }
    QVERIFY2(QFile::exists(run + "/slurm-" + id + ".out"), "the job's output is in the run folder");
    for (const QString& dir : {m_cluster.dir(), run, QDir::currentPath(), QDir::homePath()})
      QVERIFY2(!QFile::exists(dir + "/PWNED") && !QFile::exists(dir + "/PWNED2"), qPrintable(dir));
  }

  void aRequeuedJobResumes() {
    const QString run = QDir(m_cluster.dir()).filePath("runs/requeued");
    QVERIFY(QDir().mkpath(run));
    qputenv("TRAINDECK_ARGS", QDir(m_cluster.dir()).filePath("args-b").toUtf8());
    QString error;
    const QString script = slurmBatchScript(SlurmPlace{}, start(m_fake, run, 1), &error);
    QVERIFY2(!script.isEmpty(), qPrintable(error));
    qputenv("WAIT_FIRST", "1");  // the first start waits there to be requeued (sbatch hands it on)
    const QString id = submit(script, run);
    qunsetenv("WAIT_FIRST");
    QVERIFY(!id.isEmpty());
    const QString first = QDir(m_cluster.dir()).filePath("args-b.0.0"),
                  second = QDir(m_cluster.dir()).filePath("args-b.0.1");
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(first), 30000);
    QVERIFY(!read(first).split('\n').contains("--resume"));
    QTRY_VERIFY2_WITH_TIMEOUT(m_cluster.requeueOnce(id), qPrintable(m_cluster.lastError() + "\n" + m_cluster.logs()),
                              30000);
    QTRY_VERIFY2_WITH_TIMEOUT(QFile::exists(second), qPrintable(m_cluster.jobDetails(id) + "\n" + m_cluster.logs()),
                              120000);
    QVERIFY2(read(second).split('\n').contains("--resume"), qPrintable(read(second)));
    // Done: it leaves the queue, started twice (a job's end may wait for a busy controller).
    QTRY_VERIFY2_WITH_TIMEOUT(!m_cluster.inQueue(id), qPrintable(m_cluster.jobDetails(id) + "\n" + m_cluster.logs()),
                              180000);
    QVERIFY2(!QFile::exists(QDir(m_cluster.dir()).filePath("args-b.0.2")), "started a third time");
  }

  // target.build: job — the helper's build-job: the same build, run by a job on a compute node
  // (sbatch --wait), its output streamed back; built once, then cached; a failing build says so.
  // The sources are a stand-in whose build script writes down where it ran.
  void theTrainerIsBuiltByASlurmJob() {
    const QDir dir(m_cluster.dir());
    QVERIFY(QDir().mkpath(dir.filePath("src/packaging")));
    QFile script(dir.filePath("src/packaging/build-trainer.sh"));
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write("set -e\n"
                 "[ -n \"${FAIL_BUILD:-}\" ] && { echo 'c++: error: the compiler broke'; exit 1; }\n"
                 "echo \"compiling in job ${SLURM_JOB_ID:-none} on ${SLURMD_NODENAME:-nowhere}\"\n"
                 "mkdir -p \"$2/bin\" && printf '#!/bin/sh\\necho traindeck-train stand-in\\n' > \"$2/bin/traindeck-train\"\n"
                 "chmod +x \"$2/bin/traindeck-train\"\n");
    script.close();
    const auto buildJob = [&](const QString& build, const QStringList& options, const QByteArray& fail) {
      QProcess helper;
      QProcessEnvironment env = m_cluster.environment();
      env.insert("TRAINDECK_LOGIN_SHELL", "none");
      if (!fail.isEmpty()) env.insert("FAIL_BUILD", fail);
      helper.setProcessEnvironment(env);
      helper.start("sh", QStringList{TRAINDECK_REMOTE_HELPER, "build-job", dir.filePath("src"), build, "system"} + options);
      helper.waitForFinished(120000);
      return std::make_pair(helper.exitCode(), QString::fromUtf8(helper.readAllStandardOutput()));
    };
    const QString build = dir.filePath("build/abc-system");
    auto [code, out] = buildJob(build, {"--partition=debug", "--time=5"}, {});
    QVERIFY2(code == 0, qPrintable(out));
    QVERIFY2(out.contains(QRegularExpression("compiling in job [0-9]+ on n[12]")), qPrintable(out));
    QVERIFY2(out.contains("built=yes"), qPrintable(out));
    QVERIFY(QFileInfo(build + "/bin/traindeck-train").isExecutable());
    std::tie(code, out) = buildJob(build, {"--partition=debug"}, {});
    QCOMPARE(code, 0);
    QCOMPARE(out.trimmed(), QString("built=cached"));
    // A build that fails: its compiler's words come back, and the answer says where the log is.
    std::tie(code, out) = buildJob(dir.filePath("build/broken"), {"--partition=debug"}, "1");
    QVERIFY(code != 0);
    QVERIFY2(out.contains("the compiler broke") && out.contains("error=the build job ended") &&
                 out.contains("broken.job.log"),
             qPrintable(out));
    // Only sbatch options pass.
    std::tie(code, out) = buildJob(dir.filePath("build/x"), {"partition=debug"}, {});
    QVERIFY(code != 0);
    QVERIFY2(out.contains("is not an sbatch option"), qPrintable(out));
  }

  // Four runs, each with its own batch script, as one job array through the helper's
  // submit-array with a throttle of 2: never more than two of its tasks run at once, each task
  // runs its own run (the one in its run folder, its output there), the queue lists the tasks
  // one by one as ID_k, a Stop of a waiting task cancels it alone, and asking again submits
  // nothing more.
  void fourRunsAsOneJobArrayTwoAtATime() {
    const QDir dir(m_cluster.dir());
    const QString fake = dir.filePath("fake-slow");
    QFile f(fake);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(
        "#!/bin/sh\n"
        "while [ $# -gt 0 ]; do [ \"$1\" = --run-dir ] && run=$2; shift; done\n"
        "echo \"task ${SLURM_ARRAY_TASK_ID:-none} of ${SLURM_ARRAY_JOB_ID:-none}\" > \"$run/ran\"\n"
        "sleep 4\n");
    f.close();
    f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    QStringList runs, scripts;
    QString error;
    for (int k = 0; k < 4; ++k) {
      const QString run = dir.filePath(QStringLiteral("arrays/run %1 $(touch PWNED)").arg(k));
      QVERIFY(QDir().mkpath(run));
      const QString script = slurmBatchScript(place("debug"), start(fake, run, 1), &error);
      QVERIFY2(!script.isEmpty(), qPrintable(error));
      QFile file(run + "/slurm.sbatch");
      QVERIFY(file.open(QIODevice::WriteOnly));
      file.write(script.toUtf8());
      runs << run;
      scripts << run + "/slurm.sbatch";
    }
    SlurmArrayStart array{"sweep: lr", dir.filePath("arrays/a1"), scripts, 2};
    QFile first(scripts[0]);
    QVERIFY(first.open(QIODevice::ReadOnly));
    const QString text = slurmArrayScript(QString::fromUtf8(first.readAll()), array, &error);
    QVERIFY2(text.contains("#SBATCH --array=0-3%2\n") && text.contains("#SBATCH --partition=debug\n"),
             qPrintable(text));
    QCOMPARE(text.count("--output="), 1);
    QVERIFY(QDir().mkpath(array.arrayDir));
    QFile arrayScript(array.arrayDir + "/array.sbatch");
    QVERIFY(arrayScript.open(QIODevice::WriteOnly));
    arrayScript.write(text.toUtf8());
    arrayScript.close();
    const auto helper = [&](const QStringList& args) {
      QProcess p;
      QProcessEnvironment env = m_cluster.environment();
      env.insert("TRAINDECK_LOGIN_SHELL", "none");
      p.setProcessEnvironment(env);
      p.start("sh", QStringList{TRAINDECK_REMOTE_HELPER} + args);
      p.waitForFinished(60000);
      return QString::fromUtf8(p.readAllStandardOutput());
    };
    const QString submitted = helper(QStringList{"submit-array", arrayScript.fileName(), array.arrayDir} + runs);
    const QRegularExpressionMatch job =
        QRegularExpression("^job=([0-9]+)$", QRegularExpression::MultilineOption).match(submitted);
    QVERIFY2(job.hasMatch(), qPrintable(submitted + m_cluster.logs()));
    const QString id = job.captured(1);
    // The user's Stop of the last task while it waits behind the throttle: cancelled alone (a
    // signal to a waiting task would reach the running ones: their trials would stop).
    QTRY_VERIFY_WITH_TIMEOUT(helper({"queue"}).contains("job " + id + "_3|PENDING|"), 20000);
    QVERIFY(QDir().mkpath(runs[3]));
    const QString stopped = helper({"stop", id + "_3", runs[3]});
    QVERIFY2(stopped.contains("signalled=waiting"), qPrintable(stopped));
    int most = 0;
    QStringList seen{id + "_3"}, ended;  // seen waiting; once cancelled, squeue may list it no more
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 120000) {
      const QString queue = helper({"queue"});
      int running = 0, going = 0;
      for (const QString& line : queue.split('\n')) {
        const QStringList fields = line.mid(4).split('|');
        if (!line.startsWith("job " + id + "_") || fields.size() < 2) continue;
        if (!seen.contains(fields[0])) seen << fields[0];
        if (fields[1] == "COMPLETED" || fields[1] == "CANCELLED") ended << fields[0] + " " + fields[1];
        running += fields[1] == "RUNNING" ? 1 : 0;
        going += QStringList{"PENDING", "CONFIGURING", "RUNNING", "COMPLETING"}.contains(fields[1]) ? 1 : 0;
      }
      most = std::max(most, running);
      if (seen.size() == 4 && going == 0) break;  // ended ones stay listed a while (-t all)
      QTest::qWait(300);
    }
    QVERIFY2(most >= 1 && most <= 2, qPrintable(QString("%1 tasks ran at once").arg(most)));
    for (int k = 0; k < 4; ++k) {
      QVERIFY2(seen.contains(id + "_" + QString::number(k)), qPrintable(seen.join(' ')));
      if (k == 3) {  // never ran
        QVERIFY(!QFile::exists(runs[k] + "/ran"));
        QVERIFY2(!ended.contains(id + "_3 COMPLETED"), qPrintable(ended.join(", ")));
        continue;
      }
      QVERIFY2(ended.contains(QStringLiteral("%1_%2 COMPLETED").arg(id).arg(k)), qPrintable(ended.join(", ")));
      QCOMPARE(read(runs[k] + "/ran").trimmed(), QStringLiteral("task %1 of %2").arg(k).arg(id));
      QCOMPARE(read(runs[k] + "/slurm.env").trimmed(), QStringLiteral("job=%1_%2").arg(id).arg(k));
      QVERIFY2(!QDir(runs[k]).entryList({"slurm-*.out"}).isEmpty(), qPrintable(runs[k]));
    }
    QCOMPARE(helper(QStringList{"submit-array", arrayScript.fileName(), array.arrayDir} + runs).trimmed(),
             "job=" + id);  // once
    for (const QString& d : {m_cluster.dir(), runs[0], QDir::currentPath(), QDir::homePath()})
      QVERIFY2(!QFile::exists(d + "/PWNED"), qPrintable(d));
  }

  void whatAnSbatchLineCannotCarryIsRefused() {
    QString error;
    QVERIFY(slurmBatchScript(place("gpu\n#SBATCH --uid=0"), start("/t", "/r", 1), &error).isEmpty());
    QVERIFY2(error.contains("line break"), qPrintable(error));
    SlurmPlace extra;
    extra.extraLines = {"uid=0"};
    QVERIFY(slurmBatchScript(extra, start("/t", "/r", 1), &error).isEmpty());
    QVERIFY2(error.contains("must start with --"), qPrintable(error));
    QVERIFY(slurmBatchScript(SlurmPlace{}, start("/t", "/r\"x", 1), &error).isEmpty());
    QVERIFY2(error.contains("double quote"), qPrintable(error));
    QVERIFY(slurmBatchScript(SlurmPlace{}, start("/t", "/r", 0), &error).isEmpty());
    QVERIFY(!slurmBatchScript(place("debug"), start("/t", "/r", 1), &error).isEmpty());  // and a sane one is said
  }
};

QTEST_GUILESS_MAIN(SlurmBatchTest)
#include "slurm_batch_test.moc"
