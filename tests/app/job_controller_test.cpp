// The JobController with the real trainer: run ids and job files for new runs, an unreachable
// ssh target failing with a sentence (the mirror's run.json says failed), and a run started by one controller
// found again by a second one, as after the app was closed and reopened, weighed by the room
// check, and stopped through it. Needs LibTorch (the restart case trains a tiny job).
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include "config/config_io.h"
#include "job_controller.h"
#include "run_status.h"
#include "runlog/run_directory.h"
#include "tiny_job.h"

using namespace traindeck;
using test_support::runStatus;

namespace {

RunConfig tinyConfig(const QString& dir) {
  if (!test_support::makeTinyJob(dir)) return {};
  return loadConfigFile(QDir(dir).filePath("job.yaml").toStdString()).config;
}

}  // namespace

class JobControllerTest : public QObject {
  Q_OBJECT
 private slots:
  void anUnreachableSshTargetFailsWithASentence() {
    // Nothing listens on port 1: the remote job fails to start, says so, and the mirror says it.
    QTemporaryDir runs;
    JobController jobs(runs.path(), TRAINDECK_TRAIN_BIN);
    JobController::RemoteOptions remote;
    remote.payloadDir = TRAINDECK_REMOTE_PAYLOAD_DIR;
    remote.batch = true;
    remote.knownHostsFile = runs.filePath("known_hosts");
    jobs.setRemoteOptions(remote);
    QSignalSpy failed(&jobs, &JobController::jobFailedToStart);
    RunConfig config;
    config.name = "remote job";
    config.target.kind = TargetKind::Ssh;
    config.target.host = "nobody@127.0.0.1:1";
    const JobController::Started started = jobs.start(config, {}, "name: remote job\n");
    QVERIFY2(started.error.isEmpty(), qPrintable(started.error));
    QVERIFY(jobs.jobFor(started.runDir));
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 30000);
    const QString why = failed.at(0).at(1).toString();
    QVERIFY2(why.contains("127.0.0.1"), qPrintable(why));
    QCOMPARE(runStatus(started.runDir), std::string("failed"));
    QVERIFY(!jobs.jobFor(started.runDir)->isActive());
  }

  void aRunOfThisMachineIsNeverContinuedAsIfElsewhere() {
    // A stopped run of this machine with a checkpoint, asked to continue on an SSH host: refused
    // with a sentence, nothing started (it continues here, without a target).
    QTemporaryDir runs;
    JobController jobs(runs.path(), "/nonexistent/traindeck-train");
    const QString dir = runs.filePath("20261207-040000-here");
    QVERIFY(QDir().mkpath(dir + "/checkpoints/step-00000004"));
    RunInfo info;
    info.id = "20261207-040000-here";
    info.name = "here";
    info.status = RunStatus::Stopped;
    info.host = hostName();
    writeRunInfo(RunPaths{dir.toStdString()}, info);
    TargetConfig elsewhere;
    elsewhere.kind = TargetKind::Ssh;
    elsewhere.host = "gpu-box";
    const JobController::Started started = jobs.continueRun(dir, elsewhere);
    QVERIFY(started.runDir.isEmpty());
    QVERIFY2(started.error.contains("continues here, not on gpu-box"), qPrintable(started.error));
    QVERIFY(!jobs.jobFor(dir));
  }

  void givesEachStartItsOwnRunAndJobFile() {
    // A trainer that does not exist: the runs are made, their jobs fail to start and say so.
    QTemporaryDir runs;
    JobController jobs(runs.path(), "/nonexistent/traindeck-train");
    QSignalSpy failed(&jobs, &JobController::jobFailedToStart);
    RunConfig config;
    config.name = "Same Name";
    const JobController::Started a = jobs.start(config, {}, "name: Same Name\nseed: 1\n");
    const JobController::Started b = jobs.start(config, {}, "name: Same Name\nseed: 2\n");
    QVERIFY(a.error.isEmpty() && b.error.isEmpty());
    QVERIFY(a.runDir != b.runDir);  // one second, one name: still two runs
    QVERIFY(QFileInfo(a.runDir).fileName().endsWith("-same-name"));
    QFile jobB(b.runDir + ".job.yaml");
    QVERIFY(jobB.open(QIODevice::ReadOnly));
    QCOMPARE(jobB.readAll(), QByteArray("name: Same Name\nseed: 2\n"));
    QTRY_COMPARE(failed.size(), 2);
    QCOMPARE(failed.at(0).at(0).toString(), a.runDir);
    QVERIFY(jobs.jobFor(a.runDir) && !jobs.jobFor(a.runDir)->isActive());
    QVERIFY(!jobs.jobFor(runs.filePath("never-started")));
  }

  void findsItsRunsAgainAfterARestart() {
    QTemporaryDir dir;
    const RunConfig config = tinyConfig(dir.path());
    QCOMPARE(config.name, std::string("tiny cli job"));
    const QString root = dir.filePath("runs");
    QString runDir;
    {
      JobController first(root, TRAINDECK_TRAIN_BIN);
      runDir = first.start(config, dir.filePath("job.yaml"), {}, {"--set", "schedule.max_steps=100000"}).runDir;
      QVERIFY(!runDir.isEmpty());
      QTRY_COMPARE_WITH_TIMEOUT(runStatus(runDir), std::string("running"), 60000);
    }  // the app closes; the run goes on
    QCOMPARE(runStatus(runDir), std::string("running"));

    JobController second(root, TRAINDECK_TRAIN_BIN);
    // The room check: one rank per core asked for while nothing goes on here is validation's to judge.
    RunConfig wide = config;
    wide.strategy.device = DeviceKind::Cpu;
    wide.strategy.nproc_per_node = QThread::idealThreadCount();
    QSettings settings(dir.filePath("settings.ini"), QSettings::IniFormat);
    QCOMPARE(second.roomProblem(wide, 0, settings), QString());
    QCOMPARE(second.attachRunning(), 1);
    Job* job = second.jobFor(runDir);
    QVERIFY(job && job->state() == Job::State::Running);
    // Beside the run found again, the same start would share the cores; a host never probed is not judged.
    const QString room = second.roomProblem(wide, 0, settings);
    QVERIFY2(room.contains("this machine") && room.contains("cores"), qPrintable(room));
    RunConfig elsewhere = wide;
    elsewhere.target.kind = TargetKind::Ssh;
    elsewhere.target.host = "me@never-probed";
    QCOMPARE(second.roomProblem(elsewhere, 0, settings), QString());
    QSignalSpy finished(&second, &JobController::jobFinished);
    job->stop();
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 120000);
    QCOMPARE(finished.at(0).at(0).toString(), runDir);
    QCOMPARE(finished.at(0).at(1).toInt(), 0);
    QCOMPARE(runStatus(runDir), std::string("stopped"));
    QCOMPARE(second.attachRunning(), 0);  // nothing goes on any more
  }
};

QTEST_GUILESS_MAIN(JobControllerTest)
#include "job_controller_test.moc"
