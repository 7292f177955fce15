// A second factor after the key, as on MFA login nodes: the test sshd runs with PAM's
// pam_google_authenticator (libpam-google-authenticator) behind `AuthenticationMethods
// publickey,keyboard-interactive`, and the test computes the TOTP code (RFC 6238) from the
// secret it wrote. The server's own prompt reaches SshConnection's callback, the Hosts dialog's
// InteractivePromptDialog and `traindeck --check-ssh` on the terminal; a wrong code and batch
// mode fail saying why; a RemoteHost asks once for all its commands, and again after a lost link.
#include <QApplication>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageAuthenticationCode>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QtEndian>
#include <csignal>

#include "check_ssh_run.h"
#include "host_store.h"
#include "hosts_dialog.h"
#include "interactive_prompt_dialog.h"
#include "remote_host.h"
#include "ssh_connection.h"
#include "ssh_error.h"
#include "sshd_server.h"

using namespace traindeck;
using traindeck::test::CheckSshRun;
using traindeck::test::runCheckSsh;
using traindeck::test::SshdServer;

namespace {

constexpr const char* kPrompt = "Verification code: ";  // pam_google_authenticator's

QByteArray base32(const QByteArray& bytes) {  // RFC 4648, without padding
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  QByteArray out;
  quint32 buffer = 0;
  int bits = 0;
  for (const char c : bytes) {
    buffer = (buffer << 8) | static_cast<quint8>(c);
    bits += 8;
    while (bits >= 5) {
      out += kAlphabet[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += kAlphabet[(buffer << (5 - bits)) & 31];
  return out;
}

// RFC 6238: HMAC-SHA1 over the 30 s step count, dynamically truncated to 6 digits.
QString totp(const QByteArray& key, qint64 unixSeconds) {
  const quint64 step = static_cast<quint64>(unixSeconds / 30);
  QByteArray counter(8, '\0');
  qToBigEndian(step, counter.data());
  const QByteArray mac = QMessageAuthenticationCode::hash(counter, key, QCryptographicHash::Sha1);
  const int offset = mac.at(19) & 0x0f;
  const quint32 value = (static_cast<quint32>(mac.at(offset) & 0x7f) << 24) |
                        (static_cast<quint32>(static_cast<quint8>(mac.at(offset + 1))) << 16) |
                        (static_cast<quint32>(static_cast<quint8>(mac.at(offset + 2))) << 8) |
                        static_cast<quint32>(static_cast<quint8>(mac.at(offset + 3)));
  return QString("%1").arg(value % 1000000, 6, 10, QChar('0'));
}

QString pamModule() {
  for (const QString& root : {QString("/usr/lib"), QString("/lib"), QString("/usr/lib64"), QString("/lib64")}) {
    QStringList dirs{root + "/security"};
    for (const QString& arch : QDir(root).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
      dirs << root + "/" + arch + "/security";
    for (const QString& dir : dirs)
      if (QFile::exists(dir + "/pam_google_authenticator.so")) return dir + "/pam_google_authenticator.so";
  }
  return QString();
}

}  // namespace

class KbdintTest : public QObject {
  Q_OBJECT
  SshdServer m_server;
  QTemporaryDir m_home;
  QByteArray m_secret;

  QString codeNow() const { return totp(m_secret, QDateTime::currentSecsSinceEpoch()); }
  // A code that none of the steps the module accepts (this one and its neighbours) has.
  QString wrongCode() const {
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    QSet<QString> near;
    for (int s = -4; s <= 4; ++s) near << totp(m_secret, now + 30 * s);
    for (int n = 0;; ++n)
      if (const QString c = QString("%1").arg(n, 6, 10, QChar('0')); !near.contains(c)) return c;
  }

  SshTarget target(const QString& pidFile = QString()) const {
    SshTarget t = SshTarget::parse(m_server.spec());
    t.identityFiles << m_server.clientKey();
    t.knownHostsFile = m_server.knownHosts();
    if (!pidFile.isEmpty()) t.proxyCommand = m_server.proxyCommand(pidFile);
    return t;
  }

  CheckSshRun traindeck(const QStringList& args, const QByteArray& input) {
    return runCheckSsh(TRAINDECK_BIN, m_home.path(),
                       QStringList{m_server.spec(), "--identity", m_server.clientKey(), "--known-hosts",
                                   m_server.knownHosts()} +
                           args,
                       input);
  }

 private slots:
  void initTestCase() {
    if (const QString missing = SshdServer::missingPackage(); !missing.isEmpty())
      QSKIP(qPrintable("install " + missing + " to run the SSH tests"));
    if (pamModule().isEmpty()) QSKIP("install libpam-google-authenticator (pam_google_authenticator.so) for MFA tests");
    if (const QString why = SshdServer::pamUnavailable(); !why.isEmpty())
      QSKIP(qPrintable("an sshd with its own PAM service cannot run here: " + why));
    QVERIFY(m_home.isValid());
    qputenv("XDG_CONFIG_HOME", m_home.filePath("config").toUtf8());
    qputenv("HOME", m_home.path().toUtf8());
    qunsetenv("SSH_AUTH_SOCK");  // only the keys made here
    for (int i = 0; i < 10; ++i) m_secret += static_cast<char>(QRandomGenerator::system()->bounded(256));
    // The module's file: the base32 secret, then its options; it must be the user's alone.
    QFile secret(m_server.path("ga_secret"));
    QVERIFY(secret.open(QIODevice::WriteOnly));
    secret.write(base32(m_secret) + "\n\" TOTP_AUTH\n");
    secret.close();
    QVERIFY(secret.setPermissions(QFile::ReadOwner | QFile::WriteOwner));
    QFile pam(m_server.path("pam_sshd"));
    QVERIFY(pam.open(QIODevice::WriteOnly));
    pam.write(QString("auth required %1 secret=%2 user=%3\n"
                      "account required pam_permit.so\nsession required pam_permit.so\npassword required "
                      "pam_deny.so\n")
                  .arg(pamModule(), secret.fileName(), m_server.user())
                  .toUtf8());
    pam.close();
    m_server.setPamService(pam.fileName());
    if (const QString error = m_server.start(); !error.isEmpty()) QSKIP(qPrintable("cannot run sshd here: " + error));
    QVERIFY(m_server.writeKnownHosts(m_server.knownHosts()));
    QVERIFY(QDir().mkpath(m_home.filePath(".ssh")));
    QVERIFY(m_server.writeKnownHosts(m_home.filePath(".ssh/known_hosts")));  // the Hosts dialog's
  }

  // The key alone is not enough (partial success); the server's question reaches the callback
  // as it asked it, and the connection serves many commands without asking again.
  void keyThenCodeLogsIn() {
    QList<InteractivePrompt> asked;
    ConnectCallbacks callbacks;
    callbacks.askInteractive = [&](const InteractivePrompt& prompt) -> InteractiveAnswers {
      asked << prompt;
      return QList<QByteArray>{codeNow().toUtf8()};
    };
    SshConnection c;
    c.connect(target(), callbacks);
    QVERIFY(c.isConnected());
    QCOMPARE(asked.size(), 1);
    QCOMPARE(asked[0].fields.size(), 1);
    QCOMPARE(asked[0].fields[0].text, QString(kPrompt));
    QVERIFY(!asked[0].fields[0].echo);
    QCOMPARE(asked[0].host, target().display());
    QCOMPARE(asked[0].attempt, 1);
    QVERIFY2(c.authDescription().startsWith("publickey ") && c.authDescription().endsWith(" + keyboard-interactive"),
             qPrintable(c.authDescription()));
    for (int i = 0; i < 5; ++i) {
      int status = -1;
      QCOMPARE(c.execCapture(QString("echo %1").arg(i), &status), QByteArray::number(i) + "\n");
      QCOMPARE(status, 0);
    }
    QCOMPARE(asked.size(), 1);
    QVERIFY2(
        m_server.log().contains("Partial publickey") && m_server.log().contains("Accepted keyboard-interactive/pam"),
        qPrintable(m_server.log()));
  }

  // A wrong code is asked again (as OpenSSH does, 3 tries) and then refused, saying what to
  // check; a right one on the second try logs in.
  void wrongCodeRefused() {
    QList<int> attempts;
    ConnectCallbacks callbacks;
    callbacks.askInteractive = [&](const InteractivePrompt& prompt) -> InteractiveAnswers {
      attempts << prompt.attempt;
      return QList<QByteArray>{wrongCode().toUtf8()};
    };
    SshConnection c;
    try {
      c.connect(target(), callbacks);
      QFAIL("a wrong code logged in");
    } catch (const SshError& e) {
      QCOMPARE(e.kind(), SshError::Kind::Auth);
      qInfo("wrong code: %s", qPrintable(e.message()));
      QVERIFY2(e.message().contains("refused the answer to its keyboard-interactive prompt \"Verification code:\"") &&
                   e.message().contains("3 tries") && e.message().contains("clock"),
               qPrintable(e.message()));
    }
    QCOMPARE(attempts, (QList<int>{1, 2, 3}));
    QVERIFY(!c.isConnected());

    attempts.clear();
    callbacks.askInteractive = [&](const InteractivePrompt& prompt) -> InteractiveAnswers {
      attempts << prompt.attempt;
      return QList<QByteArray>{(prompt.attempt == 1 ? wrongCode() : codeNow()).toUtf8()};
    };
    c.connect(target(), callbacks);
    QVERIFY(c.isConnected());
    QCOMPARE(attempts, (QList<int>{1, 2}));
  }

  // Cancelling the prompt ends the login at once, saying so.
  void cancelledPromptEndsTheLogin() {
    ConnectCallbacks callbacks;
    callbacks.askInteractive = [](const InteractivePrompt&) -> InteractiveAnswers { return std::nullopt; };
    SshConnection c;
    try {
      c.connect(target(), callbacks);
      QFAIL("a cancelled prompt logged in");
    } catch (const SshError& e) {
      QCOMPARE(e.kind(), SshError::Kind::Auth);
      QVERIFY2(e.message().contains("cancelled at its keyboard-interactive prompt"), qPrintable(e.message()));
    }
  }

  // Batch mode asks nothing and says what the server wants and how to give it.
  void batchModeAsksNothing() {
    int asked = 0;
    ConnectCallbacks callbacks;
    callbacks.askInteractive = [&](const InteractivePrompt&) -> InteractiveAnswers {
      ++asked;
      return QList<QByteArray>{codeNow().toUtf8()};
    };
    SshTarget t = target();
    t.batch = true;
    SshConnection c;
    try {
      c.connect(t, callbacks);
      QFAIL("batch mode logged in without the second factor");
    } catch (const SshError& e) {
      QCOMPARE(e.kind(), SshError::Kind::Auth);
      qInfo("batch: %s", qPrintable(e.message()));
      QVERIFY2(e.message().contains("wants keyboard-interactive authentication after taking publickey") &&
                   e.message().contains("batch mode (--batch) asks nothing") &&
                   e.message().contains("`traindeck --check-ssh " + t.display() + "`"),
               qPrintable(e.message()));
    }
    QCOMPARE(asked, 0);
  }

  // RemoteHost (the app's and every job's connection): the prompt runs on the GUI thread, once
  // for all the commands on the connection; a lost link's reconnect asks again, as OpenSSH would.
  void oneAnswerPerConnection() {
    const QString pidFile = m_server.path("proxy.pid");
    RemoteHost host(target(pidFile));
    host.setKeepalive(1000, 5000);  // no loss taken for a slow answer on a loaded machine
    int asked = 0;
    QThread* promptThread = nullptr;
    host.setInteractivePrompt([&](const InteractivePrompt& prompt) -> InteractiveAnswers {
      ++asked;
      promptThread = QThread::currentThread();
      if (prompt.fields.value(0).text != kPrompt) return std::nullopt;
      return QList<QByteArray>{codeNow().toUtf8()};
    });
    QString failed;
    connect(&host, &RemoteHost::connectionFailed, this, [&failed](const QString& m) { failed = m; });
    host.connectToHost();
    QTRY_VERIFY2_WITH_TIMEOUT(host.isReady(), qPrintable(failed + "\nsshd: " + m_server.log().right(2000)), 15000);
    QCOMPARE(promptThread, QThread::currentThread());
    int done = 0;
    for (int i = 0; i < 8; ++i)
      host.exec(QString("echo %1").arg(i), this, [&done, i](const RemoteHost::ExecResult& r) {
        if (r.status == 0 && r.out == QByteArray::number(i) + "\n") ++done;
      });
    QTRY_COMPARE_WITH_TIMEOUT(done, 8, 15000);
    QCOMPARE(asked, 1);

    QSignalSpy back(&host, &RemoteHost::reconnected);
    const qint64 pid = SshdServer::readPid(pidFile);
    QVERIFY(pid > 0);
    ::kill(static_cast<pid_t>(pid), SIGKILL);
    QVERIFY(back.wait(20000));
    QCOMPARE(asked, 2);
    host.exec("echo again", this, [&done](const RemoteHost::ExecResult& r) { done += r.status == 0; });
    QTRY_COMPARE_WITH_TIMEOUT(done, 9, 15000);
    QCOMPARE(asked, 2);
  }

  // The Hosts dialog's Test button: the server's prompt in InteractivePromptDialog, the code
  // typed into a masked field.
  void hostsDialogAsksInADialog() {
    QSettings settings(m_home.filePath("hosts.ini"), QSettings::IniFormat);
    HostStore::save(
        settings, {{.name = "mfa", .spec = m_server.spec(), .identityFile = m_server.clientKey(), .proxyCommand = ""}});
    HostsDialog dialog(settings);
    QSignalSpy finished(&dialog, &HostsDialog::testFinished);
    QString shown;
    bool masked = false;
    QTimer answerer;  // answers the modal prompt when it appears
    connect(&answerer, &QTimer::timeout, this, [&] {
      auto* prompt = qobject_cast<InteractivePromptDialog*>(QApplication::activeModalWidget());
      if (prompt == nullptr) return;
      auto* field = prompt->findChild<QLineEdit*>("answer0");
      auto* form = prompt->findChild<QFormLayout*>();
      if (field == nullptr || form == nullptr) return;
      if (auto* label = qobject_cast<QLabel*>(form->labelForField(field))) shown = label->text();
      masked = field->echoMode() == QLineEdit::Password;
      QTest::keyClicks(field, codeNow());
      prompt->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();
    });
    answerer.start(20);
    QTest::mouseClick(dialog.findChild<QPushButton*>("testHost"), Qt::LeftButton);
    QVERIFY(finished.wait(30000));
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
    QCOMPARE(shown, QString(kPrompt).trimmed());
    QVERIFY(masked);
    QVERIFY2(finished.first().at(1).toString().contains("+ keyboard-interactive"),
             qPrintable(finished.first().at(1).toString()));
  }

  // `traindeck --check-ssh`: the server's prompt on stderr, the code read from stdin; with
  // --batch nothing is read and the line says why it failed.
  void checkSshCliReadsTheCode() {
    const CheckSshRun ok = traindeck({}, codeNow().toUtf8() + "\n");
    QVERIFY2(ok.code == 0 && ok.out.startsWith("ok: ") && ok.out.contains("+ keyboard-interactive"),
             qPrintable(ok.out + ok.err));
    QVERIFY2(ok.err.contains(kPrompt) && ok.err.contains("keyboard-interactive login"), qPrintable(ok.err));

    const CheckSshRun batch = traindeck({"--batch"}, codeNow().toUtf8() + "\n");
    QCOMPARE(batch.code, 1);
    QVERIFY2(batch.out.startsWith("failed: ") && batch.out.contains("wants keyboard-interactive") &&
                 batch.out.contains("--batch"),
             qPrintable(batch.out));
    QVERIFY2(!batch.err.contains(kPrompt), qPrintable(batch.err));
  }
};

QTEST_MAIN(KbdintTest)
#include "kbdint_test.moc"
