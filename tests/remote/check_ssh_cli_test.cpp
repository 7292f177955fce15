// `traindeck --check-ssh` as scripts use it, against the test sshd: unknown key refused in
// --batch (exit 1, fingerprint printed), accepted at the prompt and written, then success in
// --batch through an alias from ~/.ssh/config with a ProxyCommand; a changed key refused
// naming the known_hosts line; a wrong key refused; a server without SFTP failed, naming the
// fix. HOME is a temporary directory.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTest>

#include "check_ssh_run.h"
#include "sshd_server.h"

using traindeck::test::CheckSshRun;
using traindeck::test::runCheckSsh;
using traindeck::test::SshdServer;

class CheckSshCliTest : public QObject {
  Q_OBJECT
  SshdServer m_server;
  QString m_noServer;  // why the test sshd does not run here; empty when it does

  CheckSshRun traindeck(const QStringList& args, const QByteArray& input = QByteArray()) {
    return runCheckSsh(TRAINDECK_BIN, m_server.path("home"), args, input);
  }

  QString fingerprint() {
    QProcess p;
    p.start("ssh-keygen", {"-l", "-E", "sha256", "-f", m_server.path("host_key.pub")});
    p.waitForFinished(5000);
    return QString::fromUtf8(p.readAllStandardOutput()).split(' ').value(1);
  }

 private slots:
  void initTestCase() {
    if (const QString missing = SshdServer::missingPackage(); !missing.isEmpty())
      m_noServer = "install " + missing + " to run the SSH tests";
    else if (const QString error = m_server.start(); !error.isEmpty())
      m_noServer = "cannot run sshd here: " + error;
    QDir().mkpath(m_server.path("home/.ssh"));
  }

  // Every test but badArguments talks to the test sshd; that one reads arguments only.
  void init() {
    if (!m_noServer.isEmpty() && QByteArray(QTest::currentTestFunction()) != "badArguments")
      QSKIP(qPrintable(m_noServer));
  }

  void unknownKeyThenAcceptedThenBatch() {
    const QString kh = m_server.path("cli_known_hosts");
    const QStringList base = {m_server.spec(), "--identity", m_server.clientKey(), "--known-hosts", kh};
    CheckSshRun r = traindeck(base + QStringList{"--batch"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.out.startsWith("refused: Unknown host key"), qPrintable(r.out));
    QVERIFY2(r.out.contains(fingerprint()), qPrintable(r.out));
    QCOMPARE(r.out.count('\n'), 1);
    QVERIFY(!QFile::exists(kh));

    r = traindeck(base, "yes\n");
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.err.contains(fingerprint()), qPrintable(r.err));  // shown at the prompt
    QVERIFY2(r.out.startsWith("ok: "), qPrintable(r.out));
    QVERIFY(QFile::exists(kh));

    // An alias from ~/.ssh/config, through a ProxyCommand, in batch mode.
    QFile config(m_server.path("home/.ssh/config"));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write(QString("Host testbox\n  HostName 127.0.0.1\n  Port %1\n  User %2\n  IdentityFile %3\n"
                         "  UserKnownHostsFile %4\n  ProxyCommand socat - TCP:%h:%p\n")
                     .arg(m_server.port())
                     .arg(m_server.user(), m_server.clientKey(), kh)
                     .toUtf8());
    config.close();
    r = traindeck({"testbox", "--batch"});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("known in " + kh), qPrintable(r.out));
  }

  void wrongKeyRefused() {
    const CheckSshRun r = traindeck({m_server.spec(), "--identity", m_server.wrongKey(), "--known-hosts",
                             m_server.path("cli_known_hosts"), "--batch"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.out.startsWith("failed: Authentication failed"), qPrintable(r.out));
  }

  // A server without `Subsystem sftp` (a minimal image's): exit 1, one line naming the fix.
  void aHostWithoutSftpFailsNamingTheFix() {
    SshdServer bare;
    bare.setSftp(false);
    QCOMPARE(bare.start(), QString());
    const QString kh = bare.path("cli_known_hosts");
    QVERIFY(bare.writeKnownHosts(kh));
    const CheckSshRun r = traindeck({bare.spec(), "--identity", bare.clientKey(), "--known-hosts", kh, "--batch"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.out.startsWith("failed: ") && r.out.contains("no SFTP") && r.out.contains("openssh-sftp-server") &&
                 r.out.contains("`Subsystem sftp internal-sftp`"),
             qPrintable(r.out + r.err));
    QCOMPARE(r.out.count('\n'), 1);
  }

  void badArguments() {
    QCOMPARE(traindeck({}).code, 2);
    QCOMPARE(traindeck({"user@host:notaport", "--batch"}).code, 1);
  }

  void changedKeyRefusedNamingTheLine() {
    const QString kh = m_server.path("cli_known_hosts");
    QCOMPARE(m_server.restartWithNewHostKey(), QString());
    const CheckSshRun r = traindeck({m_server.spec(), "--identity", m_server.clientKey(), "--known-hosts", kh, "--batch"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.out.startsWith("refused: The host key of"), qPrintable(r.out));
    QVERIFY2(r.out.contains(kh + ":1 "), qPrintable(r.out));
    QVERIFY2(r.out.contains(fingerprint()), qPrintable(r.out));
  }
};

QTEST_GUILESS_MAIN(CheckSshCliTest)
#include "check_ssh_cli_test.moc"
