// HostsDialog and HostKeyPrompt offscreen: add, edit (invalid edits are not saved), remove,
// and the Test button against the test sshd, answering the host-key prompt by clicking
// "Accept and remember" (the key lands in $HOME/.ssh/known_hosts, a temporary directory).
#include <QApplication>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "host_key_prompt.h"
#include "hosts_dialog.h"
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

  void promptShowsTheKey() {
    HostKeyInfo key{"[h]:2222", "ssh-ed25519", "SHA256:abc", "/tmp/kh", 0, QString()};
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
    HostStore::save(settings, {{"test", server.spec(), server.clientKey(), QString()}});
    HostsDialog dialog(settings);
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
  }
};

QTEST_MAIN(HostsDialogTest)
#include "hosts_dialog_test.moc"
