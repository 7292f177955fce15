// The app closed and reopened while a remote run goes on, as a user does it: a run on the test
// sshd (a stand-in supervisor started by the helper's launch, writing run.json and train records
// as the trainer does, and ending as "stopped" on SIGTERM), its mirror under the runs root. A
// MainWindow re-attaches to it and mirrors it; closing the window leaves the run going there;
// a new window re-attaches, keeps mirroring from where the first stopped (no step twice), and
// its Stop stops the run there.
#include <signal.h>

#include <QAction>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QProcess>
#include <QSet>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>
#include <memory>

#include "continue_dialog.h"
#include "host_store.h"
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

// A stand-in run started on the test host as the app's launch does it (the helper's launch), and
// its mirror's remote.json here; `proxy` is the ProxyCommand the mirror reaches the host with.
struct StandInRun {
  QString mirror;
  qint64 pid = 0;
  ~StandInRun() {
    if (pid > 0) ::kill(-static_cast<pid_t>(pid), SIGKILL);
  }
};

bool startStandIn(const SshdServer& server, const QString& work, const QString& mirror, const QString& knownHosts,
                  const QString& proxy, StandInRun* run) {
  const QString remoteRun = work + "/runs/" + QFileInfo(mirror).fileName();
  QDir().mkpath(work);
  if (!QFile::exists(work + "/helper.sh") && !QFile::copy(TRAINDECK_REMOTE_HELPER, work + "/helper.sh")) return false;
  if (!QFile::exists(work + "/fake-train") && !QFile::copy(TRAINDECK_STAND_IN_TRAINER, work + "/fake-train"))
    return false;
  QFile(work + "/fake-train").setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
  QProcess launch;
  launch.start("sh", {work + "/helper.sh", "launch", work + "/fake-train", work + "/job.yaml", remoteRun});
  if (!launch.waitForFinished(20000)) return false;
  const QMap<QString, QString> started = parseKeyValues(launch.readAllStandardOutput());
  run->pid = started.value("pid").toLongLong();
  SshTarget target = SshTarget::parse(server.spec());
  target.identityFiles << server.clientKey();
  target.knownHostsFile = knownHosts;
  target.proxyCommand = proxy;
  RemoteRecord record;
  record.ssh = target;
  record.workDir = work;
  record.helper = work + "/helper.sh";
  record.remoteRunDir = remoteRun;
  record.trainBinary = work + "/fake-train";
  record.pid = run->pid;
  record.startTime = started.value("start_time");
  record.bootId = started.value("boot_id");
  run->mirror = mirror;
  return run->pid > 0 && QDir().mkpath(mirror) && writeRemoteRecord(mirror, record).isEmpty();
}

}  // namespace

class RemoteWindowTest : public QObject {
  Q_OBJECT
  std::unique_ptr<QTemporaryDir> m_config;

 private slots:
  // QSettings in a folder of this test program's own, never the user's (~/.config): set before
  // the first QSettings, which fixes the folder for the process; each test starts with none.
  void initTestCase() {
    m_config = std::make_unique<QTemporaryDir>();
    qputenv("XDG_CONFIG_HOME", m_config->path().toUtf8());
    QCoreApplication::setOrganizationName("TrainDeckTest");
  }
  void init() { QSettings().clear(); }

  // Continue… on a Slurm run: offered as a Slurm job again through the chosen host as its login
  // node, the run's partition, limits and login shell kept; unticked, an ssh target on that host.
  void theContinueDialogKeepsASlurmRunsPlace() {
    QTemporaryDir run;
    TargetConfig slurm;
    slurm.kind = TargetKind::Slurm;
    slurm.host = "old-login";
    slurm.identity = "/old/key";
    slurm.login_shell = "bash --login";
    slurm.slurm.partition = "gpu";
    slurm.slurm.time_limit = "4:00:00";
    const QList<HostEntry> hosts{
        {.name = "cluster", .spec = "me@login2.cluster:2222", .identityFile = "/keys/cluster", .proxyCommand = ""}};
    ContinueDialog dialog(run.path(), hosts, "/shared/me/w", slurm);
    auto* asSlurm = dialog.findChild<QCheckBox*>("continueAsSlurm");
    QVERIFY(asSlurm != nullptr);
    QVERIFY(asSlurm->isChecked());
    TargetConfig target = dialog.target();
    QCOMPARE(target.kind, TargetKind::Slurm);
    QCOMPARE(target.host, std::string("me@login2.cluster:2222"));
    QCOMPARE(target.identity, std::string("/keys/cluster"));
    QCOMPARE(target.slurm, slurm.slurm);
    QCOMPARE(target.login_shell, slurm.login_shell);
    asSlurm->setChecked(false);
    QCOMPARE(dialog.target().kind, TargetKind::Ssh);
    // An ssh run's dialog starts unticked.
    ContinueDialog plain(run.path(), hosts, "/w", TargetConfig{});
    QVERIFY(!plain.findChild<QCheckBox*>("continueAsSlurm")->isChecked());
  }

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
    RemoteRecord record;
    record.ssh = target;
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

  void aLostLinkIsSaidInTheHeaderTheStatusBarAndTheProgress() {
    // While the link to a followed run's host is down (its proxy killed and refused), the header
    // and the status bar say "link lost at HH:MM:SS, reconnecting (try N)" instead of
    // "running", and the progress waits for the link; back, they say running again.
    if (const QString missing = SshdServer::missingPackage(); !missing.isEmpty())
      QSKIP(qPrintable("install " + missing + " to run the SSH tests"));
    qunsetenv("SSH_AUTH_SOCK");
    SshdServer server;
    QCOMPARE(server.start(), QString());
    QTemporaryDir remote, local;
    const QString block = local.filePath("unreachable");  // while it exists the proxy refuses
    const QString proxy =
        QStringLiteral("test -e %1 && exit 1; %2").arg(block, server.proxyCommand(local.filePath("proxy.pid")));
    QVERIFY(server.writeKnownHosts(local.filePath("known_hosts")));
    StandInRun run;
    QVERIFY(startStandIn(server, remote.filePath("work"), local.filePath("runs/20261202-090000-link"),
                         local.filePath("known_hosts"), proxy, &run));
    MainWindowOptions options;
    options.presetDirs = {TRAINDECK_PRESETS_SOURCE_DIR};
    options.runsRoot = local.filePath("runs");
    options.trainBinary = "traindeck-train";
    MainWindow window(options);
    window.resize(1280, 800);
    Job* job = window.jobs()->jobFor(run.mirror);
    QVERIFY(job);
    QTRY_VERIFY_WITH_TIMEOUT(job->link() == Job::Link::Following, 20000);
    window.showRun(run.mirror);
    auto* header = window.findChild<QLabel*>("runLabel");
    auto* linkStatus = window.findChild<QLabel*>("linkStatus");
    auto* eta = window.findChild<QLabel*>("eta");
    QVERIFY(header && linkStatus && eta);
    QTRY_VERIFY2(header->text().contains(" · running · "), qPrintable(header->text()));
    QVERIFY(linkStatus->isHidden());

    QFile(block).open(QIODevice::WriteOnly);
    ::kill(static_cast<pid_t>(SshdServer::readPid(local.filePath("proxy.pid"))), SIGKILL);
    QTRY_VERIFY2_WITH_TIMEOUT(header->text().contains("link lost at") && header->text().contains("reconnecting (try"),
                              qPrintable(header->text()), 20000);
    QVERIFY2(!header->text().contains(" · running · "), qPrintable(header->text()));
    QVERIFY(!linkStatus->isHidden());
    QVERIFY2(linkStatus->text().contains("link lost at") && linkStatus->text().contains("reconnecting (try"),
             qPrintable(linkStatus->text()));
    QTRY_VERIFY2(eta->text().contains("waiting for the link"), qPrintable(eta->text()));
    const QDir shots(TRAINDECK_SCREENSHOT_DIR);
    QVERIFY(shots.mkpath("."));
    QVERIFY(window.grab().save(shots.filePath("link-lost.png")));

    QFile::remove(block);
    QTRY_VERIFY2_WITH_TIMEOUT(header->text().contains(" · running · "), qPrintable(header->text()), 30000);
    QTRY_VERIFY(linkStatus->isHidden());
    QTRY_VERIFY2(!eta->text().contains("waiting"), qPrintable(eta->text()));
  }

  void continueOnAnotherHostUsesTheJobsWorkFolder() {
    // Continue… on an ended remote run asks for the host and shows the job's work folder (its
    // config.yaml's target.remote_dir), which the continue then uses there, not a default one.
    if (const QString missing = SshdServer::missingPackage(); !missing.isEmpty())
      QSKIP(qPrintable("install " + missing + " to run the SSH tests"));
    qunsetenv("SSH_AUTH_SOCK");
    SshdServer server;
    QCOMPARE(server.start(), QString());
    QTemporaryDir remote, local;
    const QString knownHosts = local.filePath("known_hosts");
    QVERIFY(server.writeKnownHosts(knownHosts));
    StandInRun run;
    QVERIFY(startStandIn(server, remote.filePath("work"), local.filePath("runs/20261202-100000-moved"), knownHosts,
                         server.proxyCommand(local.filePath("proxy.pid")), &run));
    ::kill(-static_cast<pid_t>(run.pid), SIGKILL);  // it ended there; its mirror says stopped
    run.pid = 0;
    const QString bigDisk = remote.filePath("big disk/traindeck");
    QFile config(run.mirror + "/config.yaml");
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write(
        QString("name: moved\ntarget:\n  kind: ssh\n  host: somewhere\n  remote_dir: %1\n").arg(bigDisk).toUtf8());
    config.close();
    QFile json(run.mirror + "/run.json");
    QVERIFY(json.open(QIODevice::WriteOnly));
    json.write(R"({"id":"20261202-100000-moved","name":"moved","status":"stopped","host":"there"})");
    json.close();
    QVERIFY(QDir().mkpath(run.mirror + "/checkpoints/step-00000005"));
    QFile(run.mirror + "/checkpoints/step-00000005/COMPLETE").open(QIODevice::WriteOnly);
    {
      QSettings hosts;
      HostStore::save(hosts, {HostEntry{.name = "test host",
                                        .spec = server.spec(),
                                        .identityFile = server.clientKey(),
                                        .proxyCommand = server.proxyCommand(local.filePath("proxy-b.pid"))}});
    }

    MainWindowOptions options;
    options.presetDirs = {TRAINDECK_PRESETS_SOURCE_DIR};
    options.runsRoot = local.filePath("runs");
    options.trainBinary = "traindeck-train";
    options.remotePayloadDir = TRAINDECK_REMOTE_PAYLOAD;
    MainWindow window(options);
    JobController::RemoteOptions remoteOptions = window.jobs()->remoteOptions();
    remoteOptions.knownHostsFile = knownHosts;
    remoteOptions.batch = true;
    window.jobs()->setRemoteOptions(remoteOptions);
    QMenu* menu = window.runMenu({run.mirror});
    menu->deleteLater();
    QAction* continueRun = menu->findChild<QAction*>("continueRun");
    QVERIFY(continueRun->isEnabled());
    continueRun->trigger();
    ContinueDialog* dialog = nullptr;
    QTRY_VERIFY(dialog = window.findChild<ContinueDialog*>("continueDialog"));
    auto* workDir = dialog->findChild<QLineEdit*>("continueWorkDir");
    QCOMPARE(workDir->text(), bigDisk);  // the job's, shown
    const QDir shots(TRAINDECK_SCREENSHOT_DIR);
    QVERIFY(shots.mkpath("."));
    QVERIFY(dialog->grab().save(shots.filePath("continue-dialog.png")));
    dialog->accept();
    Job* job = nullptr;
    QTRY_VERIFY(job = window.jobs()->jobFor(run.mirror));
    const auto workFolderStep = [&] {
      for (const HostStart& host : job->startSteps())
        for (const BootstrapStep& step : host.steps)
          if (step.name == "work folder") return step.detail;
      return QString();
    };
    QTRY_VERIFY_WITH_TIMEOUT(!workFolderStep().isEmpty(), 20000);
    QCOMPARE(workFolderStep(), bigDisk);
    QTRY_VERIFY_WITH_TIMEOUT(QDir(bigDisk).exists(), 20000);  // made there
    job->kill();                                              // cancelled: nothing is built for this test
    QTRY_VERIFY_WITH_TIMEOUT(!job->isActive(), 20000);
  }
};

QTEST_MAIN(RemoteWindowTest)
#include "remote_window_test.moc"
