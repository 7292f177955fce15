// The app closed and reopened while a remote run goes on, as a user does it: a run on the test
// sshd (a stand-in supervisor started by the helper's launch, writing run.json and train records
// as the trainer does, and ending as "stopped" on SIGTERM), its mirror under the runs root. A
// MainWindow re-attaches to it and mirrors it; closing the window leaves the run going there;
// a new window re-attaches, keeps mirroring from where the first stopped (no step twice), and
// its Stop stops the run there.
#include <signal.h>

#include <QAction>
#include <QDir>
#include <QFile>
#include <QMenu>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include "job_controller.h"
#include "main_window.h"
#include "remote_answers.h"
#include "remote_record.h"
#include "run_status.h"
#include "runlog/run_directory.h"
#include "sshd_server.h"

using namespace traindeck;
using traindeck::test::SshdServer;

namespace {

using test_support::trainSteps;

std::string statusOf(const QString& runDir) {
  return test_support::runStatus(runDir);
}

}  // namespace

class RemoteWindowTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("TrainDeckTest"); }

  void closingAndReopeningTheAppKeepsFollowingTheRun() {
    if (const QString missing = SshdServer::missingPackage(); !missing.isEmpty())
      QSKIP(qPrintable("install " + missing + " to run the SSH tests"));
    qunsetenv("SSH_AUTH_SOCK");
    SshdServer server;
    QCOMPARE(server.start(), QString());
    QTemporaryDir remote, local;
    const QString work = remote.filePath("work"), remoteRun = work + "/runs/r1";
    QVERIFY(QDir().mkpath(work));
    QVERIFY(QFile::copy(TRAINDECK_REMOTE_HELPER, work + "/helper.sh"));
    QVERIFY(QFile::copy(TRAINDECK_STAND_IN_TRAINER, work + "/fake-train"));
    QFile(work + "/fake-train").setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    QProcess launch;
    launch.start("sh", {work + "/helper.sh", "launch", work + "/fake-train", work + "/job.yaml", remoteRun});
    QVERIFY(launch.waitForFinished(20000));
    const QMap<QString, QString> started = parseKeyValues(launch.readAllStandardOutput());
    const pid_t pid = static_cast<pid_t>(started.value("pid").toLongLong());
    QVERIFY(pid > 0);

    SshTarget target = SshTarget::parse(server.spec());
    target.identityFiles << server.clientKey();
    target.knownHostsFile = local.filePath("known_hosts");
    QVERIFY(server.writeKnownHosts(target.knownHostsFile));
    target.proxyCommand = server.proxyCommand(local.filePath("proxy.pid"));
    RemoteRecord record = RemoteRecord::fromTarget(server.spec(), target);
    record.workDir = work;
    record.helper = work + "/helper.sh";
    record.remoteRunDir = remoteRun;
    record.trainBinary = work + "/fake-train";
    record.pid = pid;
    record.startTime = started.value("start_time");
    record.bootId = started.value("boot_id");
    const QString mirror = local.filePath("runs/20261201-090000-remote-fake");
    QVERIFY(QDir().mkpath(mirror));
    QCOMPARE(writeRemoteRecord(mirror, record), QString());

    MainWindowOptions options;
    options.presetDirs = {TRAINDECK_PRESETS_SOURCE_DIR};
    options.runsRoot = local.filePath("runs");
    options.trainBinary = "traindeck-train";
    qint64 stepsBeforeClose = 0;
    {
      MainWindow window(options);
      Job* job = window.jobs()->jobFor(mirror);
      QVERIFY(job && job->isActive());
      QTRY_VERIFY_WITH_TIMEOUT(job->link() == Job::Link::Following, 20000);
      QTRY_VERIFY_WITH_TIMEOUT(trainSteps(mirror + "/metrics.jsonl").size() >= 5, 20000);
      QCOMPARE(statusOf(mirror), std::string("running"));
      window.showRun(mirror);
      QVERIFY(window.findChild<QAction*>("stopAction")->isEnabled());
      QVERIFY(window.findChild<QAction*>("fetchCheckpointAction")->isEnabled());  // its files are elsewhere
      stepsBeforeClose = trainSteps(mirror + "/metrics.jsonl").size();
    }
    // Whether the run's process lives (a zombie where nothing reaps orphans does not: the helper
    // tells them apart).
    const auto alive = [&] {
      QProcess p;
      p.start("sh", {work + "/helper.sh", "alive", QString::number(pid), started.value("start_time")});
      return p.waitForFinished(10000) && parseKeyValues(p.readAllStandardOutput()).value("alive") == "yes";
    };
    QVERIFY2(alive(), "the window closed and the run there ended with it");

    MainWindow reopened(options);
    Job* job = reopened.jobs()->jobFor(mirror);
    QVERIFY(job && job->isActive());
    // It catches up from where the first window left off: more steps, none twice.
    QTRY_VERIFY_WITH_TIMEOUT(trainSteps(mirror + "/metrics.jsonl").size() > stepsBeforeClose + 5, 20000);
    reopened.showRun(mirror);
    QAction* stop = reopened.findChild<QAction*>("stopAction");
    QVERIFY(stop->isEnabled());
    stop->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(statusOf(mirror), std::string("stopped"), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(!job->isActive(), 45000);  // its supervisor gone, all of it here
    QTRY_VERIFY(!stop->isEnabled());
    const QVector<qint64> steps = trainSteps(mirror + "/metrics.jsonl");
    QCOMPARE(QSet<qint64>(steps.begin(), steps.end()).size(), steps.size());
    QFile there(remoteRun + "/metrics.jsonl"), here(mirror + "/metrics.jsonl");
    QVERIFY(there.open(QIODevice::ReadOnly) && here.open(QIODevice::ReadOnly));
    QCOMPARE(here.readAll(), there.readAll());
    QVERIFY(!alive());

    // Continue on another host: offered for an ended mirror once a complete checkpoint is here.
    const auto continueOffered = [&] {
      QMenu* menu = reopened.runMenu({mirror});
      menu->deleteLater();
      return menu->findChild<QAction*>("continueRun")->isEnabled();
    };
    QVERIFY(!continueOffered());  // the stand-in trainer saved none
    QVERIFY(QDir().mkpath(mirror + "/checkpoints/step-00000005"));
    QFile(mirror + "/checkpoints/step-00000005/COMPLETE").open(QIODevice::WriteOnly);
    QVERIFY(continueOffered());
    // To look at: the window with the ended remote run, and its menu.
    QMenu* menu = reopened.runMenu({mirror});
    menu->deleteLater();
    const QDir shots(TRAINDECK_SCREENSHOT_DIR);
    QVERIFY(shots.mkpath("."));
    QVERIFY(menu->grab().save(shots.filePath("run-menu-remote.png")));
    reopened.resize(1280, 800);
    QVERIFY(reopened.grab().save(shots.filePath("remote-run-ended.png")));
  }
};

QTEST_MAIN(RemoteWindowTest)
#include "remote_window_test.moc"
