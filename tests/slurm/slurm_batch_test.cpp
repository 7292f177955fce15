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
  // The remote helper, run as the app runs it on a login node.
  QString helper(const QStringList& args) {
    QProcess p;
    QProcessEnvironment env = m_cluster.environment();
    env.insert("TRAINDECK_LOGIN_SHELL", "none");
    p.setProcessEnvironment(env);
    p.start("sh", QStringList{TRAINDECK_REMOTE_HELPER} + args);
    p.waitForFinished(60000);
    return QString::fromUtf8(p.readAllStandardOutput());
  }
  // `count` runs in `folder` (named to break a shell), each with its batch script for a fake
  // trainer (`fakeBody`, a sh script), and their job array's script, written at
  // <folder>/a1/array.sbatch; then submitted through the helper. Empty runs and *error when a
  // part could not be made.
  struct PreparedArray {
    QStringList runs, scripts;
    QString text, arrayScript, jobId;
  };
  PreparedArray submitArray(const QString& folder, const QByteArray& fakeBody, int count, int throttle, int pack,
                            QString* error) {
    const QDir dir(m_cluster.dir());
    PreparedArray out;
    const QString fake = dir.filePath(folder + "-fake");
    QFile f(fake);
    if (!f.open(QIODevice::WriteOnly) || f.write("#!/bin/sh\n" + fakeBody) < 0) return out;
    f.close();
    f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    for (int k = 0; k < count; ++k) {
      const QString run = dir.filePath(QStringLiteral("%1/run %2 $(touch PWNED)").arg(folder).arg(k));
      const QString script = slurmBatchScript(place("debug"), start(fake, run, 1), error);
      QFile file(run + "/slurm.sbatch");
      if (script.isEmpty() || !QDir().mkpath(run) || !file.open(QIODevice::WriteOnly) ||
          file.write(script.toUtf8()) < 0)
        return {};
      out.runs << run;
      out.scripts << run + "/slurm.sbatch";
    }
    const SlurmArrayStart array{"sweep: " + folder, dir.filePath(folder + "/a1"), out.scripts, throttle, pack};
    out.text = slurmArrayScript(read(out.scripts[0]), array, error);
    out.arrayScript = array.arrayDir + "/array.sbatch";
    QFile arrayScript(out.arrayScript);
    if (out.text.isEmpty() || !QDir().mkpath(array.arrayDir) || !arrayScript.open(QIODevice::WriteOnly) ||
        arrayScript.write(out.text.toUtf8()) < 0)
      return {};
    arrayScript.close();
    const QString submitted =
        helper(QStringList{"submit-array", out.arrayScript, array.arrayDir, QString::number(pack)} + out.runs);
    out.jobId = QRegularExpression("^job=([0-9]+)$", QRegularExpression::MultilineOption).match(submitted).captured(1);
    if (out.jobId.isEmpty()) *error = submitted + m_cluster.logs();
    return out;
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
    QString error;
    const PreparedArray array = submitArray("arrays",
                                            "while [ $# -gt 0 ]; do [ \"$1\" = --run-dir ] && run=$2; shift; done\n"
                                            "echo \"task ${SLURM_ARRAY_TASK_ID:-none} of ${SLURM_ARRAY_JOB_ID:-none}\" "
                                            "> \"$run/ran\"\nsleep 4\n",
                                            4, 2, 1, &error);
    QVERIFY2(!array.jobId.isEmpty(), qPrintable(error));
    QVERIFY2(array.text.contains("#SBATCH --array=0-3%2\n") && array.text.contains("#SBATCH --partition=debug\n"),
             qPrintable(array.text));
    QCOMPARE(array.text.count("--output="), 1);
    const QStringList& runs = array.runs;
    const QString id = array.jobId;
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
      // Named by the task's id as its run records it (slurm.env): the run's own output file.
      QVERIFY2(QFile::exists(QStringLiteral("%1/slurm-%2_%3.out").arg(runs[k], id).arg(k)),
               qPrintable(QDir(runs[k]).entryList().join(' ')));
    }
    QCOMPARE(
        helper(QStringList{"submit-array", array.arrayScript, m_cluster.dir() + "/arrays/a1", "1"} + runs).trimmed(),
        "job=" + id);  // once
    for (const QString& d : {m_cluster.dir(), runs[0], QDir::currentPath(), QDir::homePath()})
      QVERIFY2(!QFile::exists(d + "/PWNED"), qPrintable(d));
  }

  // Six runs packed two to a job (submit-array with a pack of 2, a throttle of 1): each task's
  // two runs run at once in its one allocation, each its slot of it (`--slot 0/2`, `1/2`) and its
  // own step; the allocation asks for twice a run's cores. Stop of a running run reaches its step
  // alone (its neighbour runs on to its end), and so does Kill; Stop of a run whose task still
  // waits keeps it from starting, and its neighbour starts all the same.
  void sixRunsPackedTwoToAJob() {
    QString error;
    const PreparedArray array = submitArray(
        "packs",
        "while [ $# -gt 0 ]; do case $1 in --run-dir) run=$2 ;; --slot) slot=$2 ;; esac; shift; done\n"
        "echo \"slot ${slot:-none} job ${SLURM_ARRAY_JOB_ID:-none}_${SLURM_ARRAY_TASK_ID:-none} packed \"\\\n"
        "\"${TRAINDECK_PACKED:+yes}\" > \"$run/ran\"\n"
        "i=0; while [ $i -lt 40 ]; do\n"
        "  [ -e \"$run/stop-requested\" ] && { echo stopped > \"$run/stopped\"; exit 0; }\n"
        "  [ -e \"$run/kill-requested\" ] && exit 9\n"
        "  sleep 0.2; i=$((i + 1))\n"
        "done\n"
        "ls \"$run/..\" > \"$run/finished\"\n",
        6, 1, 2, &error);
    QVERIFY2(!array.jobId.isEmpty(), qPrintable(error));
    QVERIFY2(array.text.contains("#SBATCH --array=0-2%1\n") && array.text.contains("#SBATCH --cpus-per-task=2\n"),
             qPrintable(array.text));
    const QStringList& runs = array.runs;
    const QString id = array.jobId;
    for (int k = 0; k < 6; ++k)
      QCOMPARE(read(runs[k] + "/slurm.env"), QStringLiteral("job=%1_%2\npacked=yes\n").arg(id).arg(k / 2));
    // Task 1 waits behind the throttle: its second run is stopped there.
    QTRY_VERIFY_WITH_TIMEOUT(helper({"queue"}).contains("job " + id + "_1|PENDING|"), 20000);
    QVERIFY2(helper({"stop", id + "_1", runs[3]}).contains("signalled=waiting"), qPrintable(m_cluster.logs()));
    // Task 0 runs both of its runs; the first is stopped once both have started.
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(runs[0] + "/ran") && QFile::exists(runs[1] + "/ran"), 60000);
    const QString stopped = helper({"stop", id + "_0", runs[0]});
    QVERIFY2(stopped.contains("signalled=yes"), qPrintable(stopped));
    // Task 2: its first run is killed once both have started.
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(runs[4] + "/ran") && QFile::exists(runs[5] + "/ran"), 90000);
    const QString killed = helper({"cancel", id + "_2", runs[4]});
    QVERIFY2(killed.contains("cancelled=yes"), qPrintable(killed));
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(runs[5] + "/finished"), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(
        !helper({"queue"}).contains(QRegularExpression("job " + id + "_\\d\\|(PENDING|RUNNING|COMPLETING)")), 30000);
    QCOMPARE(read(runs[0] + "/stopped").trimmed(), QStringLiteral("stopped"));
    QVERIFY(!QFile::exists(runs[0] + "/finished"));
    QVERIFY2(QFile::exists(runs[1] + "/finished") && !QFile::exists(runs[1] + "/stopped"), qPrintable(runs[1]));
    QVERIFY2(!QFile::exists(runs[3] + "/ran"), "a run stopped while its task waited started");
    QVERIFY2(QFile::exists(runs[2] + "/finished"), "the neighbour of a run stopped while it waited did not run");
    QVERIFY2(!QFile::exists(runs[4] + "/finished") && QFile::exists(runs[4] + "/kill-requested"), qPrintable(runs[4]));
    for (int k : {0, 1, 2, 4, 5})
      QCOMPARE(read(runs[k] + "/ran").trimmed(),
               QStringLiteral("slot %1/2 job %2_%3 packed yes").arg(k % 2).arg(id).arg(k / 2));
    QVERIFY2(QFile::exists(runs[1] + "/slurm-" + id + "_0.out"), qPrintable(QDir(runs[1]).entryList().join(' ')));
    for (const QString& d : {m_cluster.dir(), runs[0], QDir::currentPath(), QDir::homePath()})
      QVERIFY2(!QFile::exists(d + "/PWNED"), qPrintable(d));
  }

  // A pack at the time limit: one run checkpoints for it (exits with the requeue code), its
  // neighbour finishes. The job is requeued once both are done, by the pack, not by the run; on
  // the restart only the requeued run starts again (with --resume), the finished one does not.
  void aPackRequeuesOnceItsRunsAreDoneAndResumesOnlyTheRequeued() {
    QString error;
    const PreparedArray array =
        submitArray("requeued-pack",
                    "while [ $# -gt 0 ]; do case $1 in --run-dir) run=$2 ;; --resume) resume=yes ;; esac; shift; done\n"
                    "echo \"attempt ${SLURM_RESTART_COUNT:-0} resume ${resume:-no}\" >> \"$run/ran\"\n"
                    "case $run in\n"
                    "  *'run 0 '*) if [ \"${SLURM_RESTART_COUNT:-0}\" = 0 ]; then\n"
                    "      sleep 1; printf '{\"status\": \"requeued\"}\\n' > \"$run/run.json\"; exit 3; fi ;;\n"
                    "  *) sleep 3 ;;\n"
                    "esac\n"
                    "printf '{\"status\": \"finished\"}\\n' > \"$run/run.json\"\n",
                    2, 1, 2, &error);
    QVERIFY2(!array.jobId.isEmpty(), qPrintable(error));
    const QStringList& runs = array.runs;
    const QString task = array.jobId + "_0";
    QTRY_VERIFY2_WITH_TIMEOUT(read(runs[0] + "/ran").count("attempt") == 2,
                              qPrintable(read(runs[0] + "/ran") + m_cluster.jobDetails(task) + m_cluster.logs()),
                              180000);
    QTRY_VERIFY2_WITH_TIMEOUT(!m_cluster.inQueue(task), qPrintable(m_cluster.jobDetails(task) + m_cluster.logs()),
                              180000);
    QCOMPARE(read(runs[0] + "/ran"), QStringLiteral("attempt 0 resume no\nattempt 1 resume yes\n"));
    QCOMPARE(read(runs[1] + "/ran"), QStringLiteral("attempt 0 resume no\n"));  // its neighbour waited for it
    QVERIFY(read(runs[0] + "/run.json").contains("finished"));
  }

  // What one run asks for, times the runs that share an allocation; what cannot be divided so is
  // refused with its reason.
  void aPackAsksForItsRunsTogether() {
    QString error;
    QCOMPARE(slurmPackedOptions({"--nodes=1", "--cpus-per-task=4", "--gpus-per-node=1", "--mem=16G", "--requeue"}, 3,
                                &error),
             (QStringList{"--nodes=1", "--cpus-per-task=12", "--gpus-per-node=3", "--mem=48G", "--requeue"}));
    QCOMPARE(slurmPackedOptions({"--nodes=1", "--mem=500"}, 2, &error),
             (QStringList{"--nodes=1", "--mem=1000", "--cpus-per-task=2"}));
    for (const char* undivided : {"--nodes=2", "--gres=gpu:2", "--gpus=4", "--ntasks=2", "--exclusive"}) {
      error.clear();
      QVERIFY2(slurmPackedOptions({undivided}, 2, &error).isEmpty(), qPrintable(undivided));
      QVERIFY2(error.contains(undivided), qPrintable(error));
    }
    SlurmPlace gres = place("debug");
    gres.extraLines = {"--gres=gpu:1"};
    QVERIFY(slurmPackRefusal(gres, 1, 2).contains("--gres=gpu:1"));
    QVERIFY(slurmPackRefusal(place("debug"), 2, 2).contains("one node"));
    QCOMPARE(slurmPackRefusal(place("debug"), 1, 2), QString());
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
