// HostsDialog and HostKeyPrompt offscreen: add, edit (invalid edits are not saved), remove,
// and the Test button against the test sshd, answering the host-key prompt by clicking
// "Accept and remember" (the key lands in $HOME/.ssh/known_hosts, a temporary directory); the
// test also probes the host and keeps what it has. And BootstrapView, the steps of a remote
// start, with its Cancel, against the same kind of server; the Test button on a server without
// SFTP says what it lacks. The Colab runtime dialog: terms first, a host only once the way in it
// shows is complete.
#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "bootstrap_view.h"
#include "colab_access.h"
#include "colab_runtime_dialog.h"
#include "host_key_prompt.h"
#include "hosts_dialog.h"
#include "multi_host_job.h"
#include "runlog/run_directory.h"
#include "sshd_server.h"

using namespace traindeck;
using traindeck::test::SshdServer;

class HostsDialogTest : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

 private slots:
  void initTestCase() { QDir().mkpath(TRAINDECK_SCREENSHOT_DIR); }

  void addEditRemove() {
    QSettings settings(m_dir.filePath("hosts.ini"), QSettings::IniFormat);
    HostsDialog dialog(settings);
    auto* list = dialog.findChild<QListWidget*>("hostList");
    auto* spec = dialog.findChild<QLineEdit*>("hostSpec");
    auto* name = dialog.findChild<QLineEdit*>("hostName");
    QTest::mouseClick(dialog.findChild<QPushButton*>("addHost"), Qt::LeftButton);
    QCOMPARE(list->count(), 1);
    spec->clear();
    QTest::keyClicks(spec, "me@gpu:2222");
    name->clear();
    QTest::keyClicks(name, "gpu");
    QCOMPARE(HostStore::load(settings).value(0).spec, QString("me@gpu:2222"));
    QCOMPARE(list->item(0)->text(), QString("gpu"));
    dialog.resize(760, 420);
    QVERIFY(dialog.grab().save(QDir(TRAINDECK_SCREENSHOT_DIR).filePath("hosts-dialog.png")));
    QTest::keyClicks(spec, "x");  // "me@gpu:2222x": a bad port, shown and not saved
    QVERIFY(dialog.findChild<QLabel*>("problem")->text().contains("port"));
    QCOMPARE(HostStore::load(settings).value(0).spec, QString("me@gpu:2222"));
    QTest::mouseClick(dialog.findChild<QPushButton*>("removeHost"), Qt::LeftButton);
    QCOMPARE(list->count(), 0);
    QVERIFY(HostStore::load(settings).isEmpty());
  }

  void colabRuntimeDialogMakesAHostOnlyWhenComplete() {
    const QString key = m_dir.filePath("colab/key");
    QCOMPARE(makeEd25519Key(key, QString()), QString());
    ColabRuntimeDialog dialog;
    QVERIFY(dialog.findChild<QLabel*>("colabTerms")->text().contains("paid"));
    auto* keyEdit = dialog.findChild<QLineEdit*>("colabKey");
    keyEdit->setText(key);
    dialog.findChild<QTabWidget*>("colabWays")->setCurrentIndex(1);  // the notebook cell
    QVERIFY(dialog.cell().contains("PUBLIC_KEY = \"ssh-ed25519 "));
    auto* hostname = dialog.findChild<QLineEdit*>("colabHostname");
    auto* problem = dialog.findChild<QLabel*>("colabProblem");
    QTest::keyClicks(hostname, "evil.example.com");
    QVERIFY(!problem->text().isEmpty());
    QVERIFY(!dialog.problem().isEmpty());
    // Not yet: cloudflared, which reaches such a host, is not on this computer's PATH.
    const QByteArray oldPath = qgetenv("PATH");
    const QString bin = m_dir.filePath("colab/bin");
    qputenv("PATH", QByteArray("/usr/bin:/bin"));
    hostname->setText("https://calm-river-42.trycloudflare.com/");
    if (QStandardPaths::findExecutable("cloudflared").isEmpty()) {
      QVERIFY2(dialog.problem().contains("cloudflared is not installed") && dialog.problem().contains("apt install"),
               qPrintable(dialog.problem()));
      QVERIFY(!dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->isEnabled());
      QVERIFY(dialog.grab().save(QDir(TRAINDECK_SCREENSHOT_DIR).filePath("colab-runtime-dialog-no-cloudflared.png")));
    }
    QVERIFY(QDir().mkpath(bin));
    QFile stub(bin + "/cloudflared");
    QVERIFY(stub.open(QIODevice::WriteOnly));
    stub.write("#!/bin/sh\nexit 0\n");
    stub.close();
    stub.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    qputenv("PATH", (bin + ":").toUtf8() + oldPath);
    hostname->setText("calm-river-42.trycloudflare.com");  // asked again
    QCOMPARE(dialog.problem(), QString());
    QVERIFY(dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->isEnabled());
    qputenv("PATH", oldPath);
    QCOMPARE(dialog.host().spec, QString("root@calm-river-42.trycloudflare.com"));
    QCOMPARE(dialog.host().identityFile, key);
    dialog.resize(680, 480);
    QVERIFY(dialog.grab().save(QDir(TRAINDECK_SCREENSHOT_DIR).filePath("colab-runtime-dialog.png")));

    dialog.findChild<QTabWidget*>("colabWays")->setCurrentIndex(0);  // the Colab CLI
    dialog.findChild<QLineEdit*>("colabProgram")->setText("/opt/colab cli/bin/colab");
    auto* session = dialog.findChild<QLineEdit*>("colabSession");
    session->setText("run; rm -rf ~");
    QVERIFY(dialog.problem().contains("letters"));
    session->setText("gpt2-t4");
    auto* accelerator = dialog.findChild<QComboBox*>("colabAccelerator");
    accelerator->setCurrentIndex(accelerator->findData(QString("T4")));
    QCOMPARE(dialog.problem(), QString());
    QCOMPARE(dialog.host().proxyCommand,
             QString("'/opt/colab cli/bin/colab' ssh --proxy-mode -s gpt2-t4 -i %1 --gpu T4").arg(key));
    dialog.grab().save(QDir(TRAINDECK_SCREENSHOT_DIR).filePath("colab-runtime-dialog-cli.png"));
  }

  void promptShowsTheKey() {
    HostKeyInfo key{.hostName = "[h]:2222",
                    .keyType = "ssh-ed25519",
                    .fingerprint = "SHA256:abc",
                    .knownHostsFile = "/tmp/kh",
                    .knownHostsLine = 0,
                    .knownKeyType = ""};
    HostKeyPrompt prompt(key);
    QCOMPARE(prompt.findChild<QLabel*>("fingerprint")->text(), QString("SHA256:abc"));
    QVERIFY(prompt.grab().save(QDir(TRAINDECK_SCREENSHOT_DIR).filePath("host-key-prompt.png")));
    QTest::mouseClick(prompt.findChild<QPushButton*>("acceptOnce"), Qt::LeftButton);
    QCOMPARE(prompt.decision(), HostKeyDecision::AcceptOnce);
  }

  void testButtonConnects() {
    if (const QString missing = SshdServer::missingPackage(); !missing.isEmpty())
      QSKIP(qPrintable("install " + missing + " to run the SSH tests"));
    SshdServer server;
    if (const QString error = server.start(); !error.isEmpty()) QSKIP(qPrintable("cannot run sshd here: " + error));
    qputenv("HOME", m_dir.path().toUtf8());
    qunsetenv("SSH_AUTH_SOCK");
    QSettings settings(m_dir.filePath("hosts2.ini"), QSettings::IniFormat);
    HostStore::save(settings,
                    {{.name = "test", .spec = server.spec(), .identityFile = server.clientKey(), .proxyCommand = ""}});
    HostsDialog dialog(settings);
    QFile helper(TRAINDECK_REMOTE_HELPER);
    QVERIFY(helper.open(QIODevice::ReadOnly));
    dialog.setProbeScript(helper.readAll());
    QVERIFY(dialog.findChild<QLabel*>("hostProbe")->text().startsWith("Not probed yet"));
    QSignalSpy probed(&dialog, &HostsDialog::hostProbed);
    QSignalSpy finished(&dialog, &HostsDialog::testFinished);
    QString shownFingerprint;
    QTimer clicker;  // answers the modal prompt when it appears
    connect(&clicker, &QTimer::timeout, this, [&] {
      if (auto* prompt = qobject_cast<HostKeyPrompt*>(QApplication::activeModalWidget())) {
        shownFingerprint = prompt->findChild<QLabel*>("fingerprint")->text();
        prompt->findChild<QPushButton*>("acceptAndRemember")->click();
      }
    });
    clicker.start(20);
    QTest::mouseClick(dialog.findChild<QPushButton*>("testHost"), Qt::LeftButton);
    QVERIFY(finished.wait(20000));
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
    QVERIFY(shownFingerprint.startsWith("SHA256:"));
    QVERIFY(dialog.findChild<QLabel*>("testResult")->text().startsWith("ok: "));
    QFile kh(m_dir.filePath(".ssh/known_hosts"));
    QVERIFY(kh.open(QIODevice::ReadOnly));
    QVERIFY(kh.readAll().contains(QString("[127.0.0.1]:%1").arg(server.port()).toUtf8()));
    // What the host has: said in the result, kept with the host, shown when it is selected.
    QCOMPARE(probed.count(), 1);
    const auto stored = HostStore::probeFor(settings, server.spec());
    QVERIFY(stored && stored->probe.cpus >= 1 && !stored->probe.bootId.isEmpty());
    QVERIFY(dialog.findChild<QLabel*>("testResult")->text().contains("it has: " + stored->probe.summary()));
    QVERIFY2(dialog.findChild<QLabel*>("hostProbe")->text().contains(stored->probe.summary()),
             qPrintable(dialog.findChild<QLabel*>("hostProbe")->text()));
    dialog.resize(760, 420);
    QVERIFY(dialog.grab().save(QDir(TRAINDECK_SCREENSHOT_DIR).filePath("hosts-dialog-probed.png")));
  }

  // A host whose sshd has no `Subsystem sftp`: the Test button says so, with the fix, at once.
  void testButtonSaysWhatAHostWithoutSftpLacks() {
    if (const QString missing = SshdServer::missingPackage(); !missing.isEmpty())
      QSKIP(qPrintable("install " + missing + " to run the SSH tests"));
    SshdServer server;
    server.setSftp(false);
    if (const QString error = server.start(); !error.isEmpty()) QSKIP(qPrintable("cannot run sshd here: " + error));
    const QDir home(m_dir.filePath("home-nosftp"));  // whose known_hosts knows this server: no prompt
    qputenv("HOME", home.path().toUtf8());
    qunsetenv("SSH_AUTH_SOCK");
    QVERIFY(QDir().mkpath(home.filePath(".ssh")));
    QVERIFY(server.writeKnownHosts(home.filePath(".ssh/known_hosts")));
    QSettings settings(home.filePath("hosts.ini"), QSettings::IniFormat);
    HostStore::save(settings,
                    {{.name = "bare", .spec = server.spec(), .identityFile = server.clientKey(), .proxyCommand = ""}});
    HostsDialog dialog(settings);
    QSignalSpy finished(&dialog, &HostsDialog::testFinished);
    QTest::mouseClick(dialog.findChild<QPushButton*>("testHost"), Qt::LeftButton);
    QVERIFY(finished.wait(20000));
    QVERIFY(!finished.first().at(0).toBool());
    const QString shown = dialog.findChild<QLabel*>("testResult")->text();
    QVERIFY2(shown.startsWith("failed: ") && shown.contains("no SFTP") && shown.contains("openssh-sftp-server") &&
                 shown.contains("`Subsystem sftp internal-sftp`"),
             qPrintable(shown));
  }

  void bootstrapViewShowsTheStepsAndCancels() {
    if (const QString missing = SshdServer::missingPackage(); !missing.isEmpty())
      QSKIP(qPrintable("install " + missing + " to run the SSH tests"));
    SshdServer server;
    if (const QString error = server.start(); !error.isEmpty()) QSKIP(qPrintable("cannot run sshd here: " + error));
    qunsetenv("SSH_AUTH_SOCK");
    QTemporaryDir dir;
    RemoteLaunch launch;
    launch.target = SshTarget::parse(server.spec());
    launch.target.identityFiles << server.clientKey();
    launch.target.knownHostsFile = dir.filePath("known_hosts");
    QVERIFY(server.writeKnownHosts(launch.target.knownHostsFile));
    launch.workDir = dir.filePath("work");
    launch.configBaseDir = dir.path();
    launch.localRunDir = dir.filePath("runs/r1");
    launch.payloadDir = TRAINDECK_REMOTE_PAYLOAD;
    RemoteJob job;
    BootstrapView view;
    view.resize(900, 90);
    view.follow(&job);
    QVERIFY(view.isHidden());  // not starting yet
    QString shownAtProbe;
    // Cancel as the probe begins: before anything is built there.
    connect(&job, &Job::stepStarted, this, [&](int, const QString& step) {
      if (step != "probe" || !shownAtProbe.isEmpty()) return;
      shownAtProbe = view.stepsText();
      QVERIFY(view.grab().save(QDir(TRAINDECK_SCREENSHOT_DIR).filePath("bootstrap-view.png")));
      view.findChild<QPushButton*>("bootstrapCancel")->click();
    });
    job.start(launch);
    QVERIFY(!view.isHidden());
    QTRY_VERIFY_WITH_TIMEOUT(job.state() == Job::State::Finished, 20000);
    QVERIFY2(shownAtProbe.contains("✓ connect") && shownAtProbe.contains("✓ work folder") &&
                 shownAtProbe.contains("▶ probe"),
             qPrintable(shownAtProbe));
    QVERIFY(view.isHidden());
    const RunInfoReadResult read = readRunInfo(RunPaths{launch.localRunDir.toStdString()});
    QVERIFY(read.ok());
    QCOMPARE(read.info.status, RunStatus::Failed);
    QVERIFY2(QString::fromStdString(read.info.exitReason).contains("during the probe step"),
             read.info.exitReason.c_str());
    QVERIFY(!QDir(launch.workDir + "/build").exists());
  }

  // A job on two hosts starts on both at once, one line of steps per node; Cancel as node 1
  // probes stops both starts, and the run's record blames no node (it was cancelled).
  void bootstrapViewShowsEveryNodeAndCancelsAll() {
    if (const QString missing = SshdServer::missingPackage(); !missing.isEmpty())
      QSKIP(qPrintable("install " + missing + " to run the SSH tests"));
    SshdServer first, second;
    if (const QString error = first.start() + second.start(); !error.isEmpty())
      QSKIP(qPrintable("cannot run sshd here: " + error));
    qunsetenv("SSH_AUTH_SOCK");
    QTemporaryDir dir;
    QVector<RemoteLaunch> launches;
    std::vector<std::unique_ptr<RemoteJob>> nodes;
    for (const SshdServer* server : {&first, &second}) {
      const int r = static_cast<int>(launches.size());
      RemoteLaunch launch;
      launch.target = SshTarget::parse(server->spec());
      launch.target.identityFiles << server->clientKey();
      launch.target.knownHostsFile = dir.filePath(QStringLiteral("known_hosts_%1").arg(r));
      QVERIFY(server->writeKnownHosts(launch.target.knownHostsFile));
      launch.workDir = dir.filePath("work");
      launch.configBaseDir = dir.path();
      launch.localRunDir = r == 0 ? dir.filePath("runs/r1") : MultiHostJob::nodeDir(dir.filePath("runs/r1"), r);
      launch.remoteName = r == 0 ? QStringLiteral("r1") : QStringLiteral("r1.node-1");
      launch.payloadDir = TRAINDECK_REMOTE_PAYLOAD;
      launches << launch;
      nodes.push_back(std::make_unique<RemoteJob>());
    }
    MultiHostJob job(std::move(nodes));
    BootstrapView view;
    view.resize(900, 110);
    view.follow(&job);
    QVERIFY(view.isHidden());
    QString shown;
    connect(job.node(1), &Job::stepStarted, this, [&](int, const QString& step) {
      if (step != "probe" || !shown.isEmpty()) return;
      shown = view.stepsText();
      QVERIFY(view.grab().save(QDir(TRAINDECK_SCREENSHOT_DIR).filePath("bootstrap-view-two-hosts.png")));
      view.findChild<QPushButton*>("bootstrapCancel")->click();
    });
    QSignalSpy finished(&job, &Job::finished);
    job.start(launches, 1);
    QVERIFY(!view.isHidden());
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 20000);
    QCOMPARE(job.state(), Job::State::Finished);
    const QStringList lines = shown.split('\n');
    QCOMPARE(lines.size(), 2);
    QVERIFY2(lines[0].startsWith("node 0: ✓ connect") && lines[1].startsWith("node 1: ✓ connect") &&
                 lines[1].contains("▶ probe"),
             qPrintable(shown));
    QVERIFY(view.isHidden());
    for (const QString& run : {dir.filePath("runs/r1"), MultiHostJob::nodeDir(dir.filePath("runs/r1"), 1)}) {
      const RunInfoReadResult read = readRunInfo(RunPaths{run.toStdString()});
      QCOMPARE(read.info.status, RunStatus::Failed);
      QVERIFY2(QString::fromStdString(read.info.exitReason).contains("Stopped before the run started"),
               read.info.exitReason.c_str());
    }
    QVERIFY(!QDir(dir.filePath("work/build")).exists());
  }
};

QTEST_MAIN(HostsDialogTest)
#include "hosts_dialog_test.moc"
