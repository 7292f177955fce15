// SshConnection, SshTunnel and SftpTransfer against a real OpenSSH server on loopback:
// host keys (unknown, changed, batch), authentication, exec (10 MB, quoting), a 100 MB tunnel
// and concurrent channels, 50 MB SFTP both ways with checksums, and resumed transfers.
#include <sys/resource.h>
#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <thread>

#include "sftp_transfer.h"
#include "shell_quote.h"
#include "ssh_connection.h"
#include "ssh_error.h"
#include "ssh_tunnel.h"
#include "sshd_server.h"
#include "test_streams.h"

using namespace traindeck;
using traindeck::test::SshdServer;

namespace {

QString fingerprintOf(const QString& pubKey) {
  QProcess p;
  p.start("ssh-keygen", {"-l", "-E", "sha256", "-f", pubKey});
  p.waitForFinished(5000);
  return QString::fromUtf8(p.readAllStandardOutput()).split(' ').value(1);
}

ConnectCallbacks acceptOnce() {
  ConnectCallbacks c;
  c.confirmHostKey = [](const HostKeyInfo&) { return HostKeyDecision::AcceptOnce; };
  return c;
}

}  // namespace

// CPU time of this process (every thread) so far, in seconds.
static double cpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

class SshdTest : public QObject {
  Q_OBJECT
  SshdServer m_server;

  SshTarget target(const QString& knownHosts = QString(), const QString& key = QString()) {
    SshTarget t = SshTarget::parse(m_server.spec());
    t.identityFiles << (key.isEmpty() ? m_server.clientKey() : key);
    t.knownHostsFile = knownHosts.isEmpty() ? m_server.path("kh_default") : knownHosts;
    return t;
  }

 private slots:
  void initTestCase() {
    if (const QString missing = SshdServer::missingPackage(); !missing.isEmpty())
      QSKIP(qPrintable("install " + missing + " to run the SSH tests"));
    qunsetenv("SSH_AUTH_SOCK");  // only the keys made here
    const QString error = m_server.start();
    if (!error.isEmpty()) QSKIP(qPrintable("cannot run sshd here: " + error));
  }

  void unknownKeyAcceptedAndWritten() {
    const QString kh = m_server.path("kh_unknown");
    // Batch mode refuses it and writes nothing.
    SshTarget batch = target(kh);
    batch.batch = true;
    SshConnection c;
    try {
      c.connect(batch, acceptOnce());
      QFAIL("batch mode accepted an unknown key");
    } catch (const SshError& e) {
      QCOMPARE(e.kind(), SshError::Kind::HostKeyUnknown);
      QVERIFY2(e.message().contains(fingerprintOf(m_server.path("host_key.pub"))), qPrintable(e.message()));
    }
    QVERIFY(!QFile::exists(kh));
    // Asked, accepted and remembered.
    HostKeyInfo shown;
    ConnectCallbacks cb;
    cb.confirmHostKey = [&](const HostKeyInfo& info) {
      shown = info;
      return HostKeyDecision::AcceptAndRemember;
    };
    c.connect(target(kh), cb);
    QCOMPARE(shown.keyType, QString("ssh-ed25519"));
    QCOMPARE(shown.fingerprint, fingerprintOf(m_server.path("host_key.pub")));
    QFile f(kh);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readAll().startsWith(QString("[127.0.0.1]:%1 ssh-ed25519 ").arg(m_server.port()).toUtf8()));
    c.disconnect();
    // Known now: not asked again, and batch mode passes.
    bool asked = false;
    cb.confirmHostKey = [&](const HostKeyInfo&) {
      asked = true;
      return HostKeyDecision::Reject;
    };
    c.connect(batch, cb);
    QVERIFY(!asked);
    QVERIFY(c.hostKeyWasKnown());
  }

  void keyOfAnotherTypeRefused() {
    // known_hosts knows an ECDSA key for this host; the server only has an Ed25519 one.
    const QString kh = m_server.path("kh_other"), ecdsa = m_server.path("other_type_key");
    QProcess keygen;
    keygen.start("ssh-keygen", {"-q", "-t", "ecdsa", "-N", "", "-f", ecdsa});
    QVERIFY(keygen.waitForFinished(10000));
    QFile pub(ecdsa + ".pub"), file(kh);
    QVERIFY(pub.open(QIODevice::ReadOnly) && file.open(QIODevice::WriteOnly));
    const QByteArray key = pub.readAll().split(' ').mid(0, 2).join(' ');
    file.write("# a comment\nsomewhere.else " + key + "\n" + QString("[127.0.0.1]:%1 ").arg(m_server.port()).toUtf8() +
               key + "\n");
    file.close();
    bool asked = false;
    ConnectCallbacks cb;
    cb.confirmHostKey = [&](const HostKeyInfo&) {
      asked = true;
      return HostKeyDecision::AcceptAndRemember;
    };
    SshConnection c;
    try {
      c.connect(target(kh), cb);
      QFAIL("a host key of another type was accepted");
    } catch (const SshError& e) {
      QCOMPARE(e.kind(), SshError::Kind::HostKeyChanged);
      QVERIFY2(e.message().contains(kh + ":3 holds a different ecdsa-sha2-nistp256 key"), qPrintable(e.message()));
    }
    QVERIFY(!asked);
  }

  void wrongKeyRefused() {
    SshConnection c;
    try {
      c.connect(target(QString(), m_server.wrongKey()), acceptOnce());
      QFAIL("an unauthorized key was accepted");
    } catch (const SshError& e) {
      QCOMPARE(e.kind(), SshError::Kind::Auth);
      QVERIFY2(e.message().contains("wrong_key (refused by the server)"), qPrintable(e.message()));
    }
  }

  void passphraseAskedThroughTheCallback() {
    const QString key = m_server.path("pp_key");
    QProcess keygen;
    keygen.start("ssh-keygen", {"-q", "-t", "ed25519", "-N", "s3cret pass", "-f", key});
    QVERIFY(keygen.waitForFinished(10000));
    QFile pub(key + ".pub"), authorized(m_server.path("authorized_keys"));
    QVERIFY(pub.open(QIODevice::ReadOnly) && authorized.open(QIODevice::Append));
    authorized.write(pub.readAll());
    authorized.close();
    QStringList prompts;
    ConnectCallbacks cb = acceptOnce();
    cb.askSecret = [&](const QString& prompt) -> std::optional<QByteArray> {
      prompts << prompt;
      return prompts.size() == 1 ? QByteArray("wrong") : QByteArray("s3cret pass");
    };
    SshConnection c;
    c.connect(target(QString(), key), cb);
    QCOMPARE(prompts.size(), 2);  // a wrong passphrase is asked again
    QVERIFY(prompts.first().contains(key));
    QCOMPARE(c.authDescription(), "publickey " + key);
    c.disconnect();
    SshTarget batch = target(QString(), key);  // batch mode asks nothing, so the key is unusable
    batch.batch = true;
    prompts.clear();
    QVERIFY_THROWS_EXCEPTION(SshError, c.connect(batch, cb));
    QVERIFY(prompts.isEmpty());
  }

  void agentUsedWhenPresent() {
    if (QStandardPaths::findExecutable("ssh-agent").isEmpty()) QSKIP("install openssh-client for ssh-agent");
    const QString sock = m_server.path("agent.sock");
    QProcess agent;
    agent.start("ssh-agent", {"-D", "-a", sock});
    QVERIFY(agent.waitForStarted(5000));
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(sock), 5000);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("SSH_AUTH_SOCK", sock);
    QProcess add;
    add.setProcessEnvironment(env);
    add.start("ssh-add", {m_server.clientKey()});
    QVERIFY(add.waitForFinished(5000) && add.exitCode() == 0);
    const QByteArray home = qgetenv("HOME");
    qputenv("HOME", m_server.path("empty_home").toUtf8());  // no default keys to fall back on
    qputenv("SSH_AUTH_SOCK", sock.toUtf8());
    SshTarget t = target();
    t.identityFiles.clear();
    SshConnection c;
    QString auth;
    try {
      c.connect(t, acceptOnce());
      auth = c.authDescription();
    } catch (const SshError& e) {
      auth = e.message();
    }
    qputenv("HOME", home);
    qunsetenv("SSH_AUTH_SOCK");
    agent.terminate();
    agent.waitForFinished(5000);
    QCOMPARE(auth, QString("ssh-agent"));
  }

  void execLargeOutputIntact() {
    SshConnection c;
    c.connect(target(), acceptOnce());
    const QString file = m_server.path("ten_mb");
    test::writeRandomFile(file, 10 << 20, 7);
    QFile expected(file);
    QVERIFY(expected.open(QIODevice::ReadOnly));
    const QByteArray want = expected.readAll();
    QByteArray got, err;
    got.reserve(want.size());
    QElapsedTimer t;
    t.start();
    const int status = c.exec(
        "cat " + shellQuote(file) + "; echo done >&2; exit 3", [&](QByteArrayView b) { got.append(b); },
        [&](QByteArrayView b) { err.append(b); });
    qInfo("exec: 10 MB of stdout in %.2f s (%.0f MB/s)", t.elapsed() / 1000.0, 10.0 / (t.elapsed() / 1000.0));
    QCOMPARE(status, 3);
    QCOMPARE(got.size(), want.size());
    QVERIFY(got == want);
    QCOMPARE(err, QByteArray("done\n"));
  }

  void quotingRunsNothing() {
    SshConnection c;
    c.connect(target(), acceptOnce());
    const QString marker = m_server.path("pwned");
    const QStringList words = {"$(touch " + marker + ")",
                               "`touch " + marker + "`",
                               "'; touch " + marker + "; echo '",
                               "\"; touch " + marker + "; \"",
                               "a;touch " + marker,
                               "x\ntouch " + marker + "\n",
                               " with  spaces ",
                               "$HOME ${IFS} \\ * ? ~ & | > < #"};
    for (const QString& w : words) {
      int status = -1;
      const QByteArray out = c.execCapture("printf '%s' " + shellQuote(w), &status);
      QCOMPARE(status, 0);
      QCOMPARE(QString::fromUtf8(out), w);
      // As a file name too: created and listed under exactly that name.
      const QString path = m_server.path("q") + "/" + QString(w).replace('/', '_');
      c.execCapture(shellJoin({"mkdir", "-p", m_server.path("q")}) + " && " + shellJoin({"touch", "--", path}),
                    &status);
      QCOMPARE(status, 0);
      QVERIFY2(QFile::exists(path), qPrintable(path));
    }
    QVERIFY2(!QFile::exists(marker), "a quoted word was executed by the remote shell");
  }

  void tunnelCarries100MB() {
    SshConnection c;
    c.connect(target(), acceptOnce());
    constexpr qint64 kBytes = 100 << 20;
    test::PatternServer service(kBytes);
    SshTunnel tunnel(&c, "127.0.0.1", service.port());
    QSignalSpy closed(&tunnel, &SshTunnel::channelClosed);
    const quint16 port = tunnel.listen();
    bool intact = false;
    qint64 size = 0;
    std::atomic<qint64> finishedMs{-1};
    QElapsedTimer t;
    t.start();
    std::thread client([&] {
      test::readPatternFrom(port, &size, &intact);
      finishedMs = t.elapsed();
    });
    QTRY_VERIFY_WITH_TIMEOUT(finishedMs >= 0, 30000);
    const double seconds = finishedMs / 1000.0;
    client.join();
    qInfo("tunnel: 100 MB in %.2f s = %.0f MB/s", seconds, 100.0 / seconds);
    QCOMPARE(size, kBytes);
    QVERIFY(intact);
    QTRY_COMPARE_WITH_TIMEOUT(closed.count(), 1, 5000);  // the remote side closed: reported
    QVERIFY(closed.first().at(1).toString().contains("remote side closed"));
    // With nothing left to carry the tunnel must idle, not spin on the session socket where the
    // server's last packets wait unread.
    const double before = cpuSeconds();
    QTest::qWait(1000);
    const double used = cpuSeconds() - before;
    QVERIFY2(used < 0.3, qPrintable(QString("an idle tunnel used %1 s of CPU in 1 s").arg(used)));
  }

  void tunnelSeveralConnectionsAtOnce() {
    SshConnection c;
    c.connect(target(), acceptOnce());
    constexpr qint64 kBytes = 8 << 20;
    constexpr int kClients = 4;
    test::PatternServer service(kBytes);
    SshTunnel tunnel(&c, "127.0.0.1", service.port());
    QSignalSpy closed(&tunnel, &SshTunnel::channelClosed);
    const quint16 port = tunnel.listen();
    for (int round = 0; round < 2; ++round) {  // the second round reopens channels on demand
      bool intact[kClients] = {};
      qint64 size[kClients] = {};
      std::atomic<int> finished{0};
      std::vector<std::thread> clients;
      for (int i = 0; i < kClients; ++i)
        clients.emplace_back([&, i] {
          test::readPatternFrom(port, &size[i], &intact[i]);
          ++finished;
        });
      QTRY_COMPARE_WITH_TIMEOUT(finished.load(), kClients, 30000);
      for (std::thread& th : clients) th.join();
      for (int i = 0; i < kClients; ++i) {
        QCOMPARE(size[i], kBytes);
        QVERIFY(intact[i]);
      }
    }
    QTRY_COMPARE_WITH_TIMEOUT(closed.count(), 2 * kClients, 5000);
    // A port where nothing listens on the remote side: the failure is reported per connection.
    SshTunnel nowhere(&c, "127.0.0.1", 1);
    QSignalSpy refused(&nowhere, &SshTunnel::channelClosed);
    bool intact = false;
    qint64 size = -1;
    const quint16 nowherePort = nowhere.listen();
    std::thread client([&] { test::readPatternFrom(nowherePort, &size, &intact); });
    QTRY_COMPARE_WITH_TIMEOUT(refused.count(), 1, 5000);
    client.join();
    QCOMPARE(size, 0);
  }

  void sftpUploadAndDownload50MB() {
    SshConnection c;
    c.connect(target(), acceptOnce());
    SftpTransfer sftp(c);
    const QString local = m_server.path("fifty_mb"), remote = m_server.path("remote_copy"),
                  back = m_server.path("fifty_mb_back");
    const QByteArray sha = test::writeRandomFile(local, 50 << 20, 11);
    QFile::remove(remote);
    QFile stale(remote);  // an existing target is replaced
    QVERIFY(stale.open(QIODevice::WriteOnly));
    stale.write("old");
    stale.close();
    qint64 lastDone = 0, progressCalls = 0;
    TransferResult up = sftp.upload(local, remote, [&](qint64 done, qint64 total) {
      QCOMPARE(total, qint64(50 << 20));
      QVERIFY(done > lastDone);
      lastDone = done;
      ++progressCalls;
    });
    qInfo("sftp upload: 50 MB in %.2f s = %.0f MB/s", up.seconds, 50.0 / up.seconds);
    QCOMPARE(up.sha256, sha);
    QVERIFY(progressCalls > 10);
    QCOMPARE(sftp.remoteSha256(remote), sha);
    QVERIFY(!QFile::exists(SftpTransfer::partName(remote)));
    TransferResult down = sftp.download(remote, back);
    qInfo("sftp download: 50 MB in %.2f s = %.0f MB/s", down.seconds, 50.0 / down.seconds);
    QCOMPARE(down.sha256, sha);
    QFile f(back);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex(), sha);
  }

  void aFileWrittenDuringItsDownloadIsSaidToHaveChanged() {
    SshConnection c;
    c.connect(target(), acceptOnce());
    SftpTransfer sftp(c);
    const QString source = m_server.path("growing_log"), dest = m_server.path("growing_copy");
    test::writeRandomFile(source, 4 << 20, 17);
    bool appended = false;
    try {
      sftp.download(source, dest, [&](qint64, qint64) {
        if (appended) return;
        QFile log(source);  // the run writes on while we download
        QVERIFY(log.open(QIODevice::Append));
        log.write("one more line\n");
        appended = true;
      });
      QFAIL("a download of a file that grew meanwhile passed its checksum");
    } catch (const SshError& e) {
      QVERIFY2(e.message().contains("changed while it was being downloaded"), qPrintable(e.message()));
    }
    QVERIFY(appended);
    QVERIFY(!QFile::exists(dest));
    QVERIFY(!QFile::exists(SftpTransfer::partName(dest)));
  }

  void interruptedTransfersResumeFromTheirOffset() {
    SshConnection c;
    c.connect(target(), acceptOnce());
    SftpTransfer sftp(c);
    const QString source = m_server.path("resume_src"), dest = m_server.path("resume_dst");
    const QByteArray sha = test::writeRandomFile(source, 6 << 20, 13);
    // A .part holding the first 2.5 MB, as a cut download leaves it.
    QFile src(source);
    QVERIFY(src.open(QIODevice::ReadOnly));
    QFile part(SftpTransfer::partName(dest));
    QVERIFY(part.open(QIODevice::WriteOnly));
    part.write(src.read(5 << 19));
    part.close();
    TransferResult r = sftp.download(source, dest);
    QCOMPARE(r.resumedFrom, qint64(5 << 19));
    QCOMPARE(r.sha256, sha);
    QVERIFY(!QFile::exists(SftpTransfer::partName(dest)));
    // The same for an upload; and a damaged .part is caught by the checksum and removed.
    const QString up = m_server.path("resume_up");
    QFile::copy(SftpTransfer::partName(dest), SftpTransfer::partName(up));
    QFile upPart(SftpTransfer::partName(up));
    QVERIFY(upPart.open(QIODevice::WriteOnly));
    src.seek(0);
    upPart.write(src.read(1 << 20));
    upPart.close();
    r = sftp.upload(source, up);
    QCOMPARE(r.resumedFrom, qint64(1 << 20));
    QCOMPARE(sftp.remoteSha256(up), sha);
    QVERIFY(upPart.open(QIODevice::WriteOnly));
    upPart.write(QByteArray(1 << 20, 'x'));
    upPart.close();
    QVERIFY_THROWS_EXCEPTION(SshError, sftp.upload(source, up));
    QVERIFY(!QFile::exists(SftpTransfer::partName(up)));
  }

  // Two uploaders of one file (two apps, or two hosts on one shared file system): each writes
  // its own tagged .part, and the rename replaces the target whole.
  void uploadersOfOneFileDoNotShareAPart() {
    SshConnection c;
    c.connect(target(), acceptOnce());
    SftpTransfer mine(c, "mine");
    const QString source = m_server.path("shared_src"), dest = m_server.path("shared_dst");
    const QByteArray sha = test::writeRandomFile(source, 3 << 20, 23);
    QFile theirs(SftpTransfer::partName(dest, "theirs"));  // another upload, under way
    QVERIFY(theirs.open(QIODevice::WriteOnly));
    theirs.write("half of their upload");
    theirs.close();
    QFile old(dest);  // and an earlier copy in place
    QVERIFY(old.open(QIODevice::WriteOnly));
    old.write("old");
    old.close();
    const TransferResult r = mine.upload(source, dest);
    QCOMPARE(r.resumedFrom, qint64(0));  // not their bytes
    QCOMPARE(mine.remoteSha256(dest), sha);
    QVERIFY(!QFile::exists(SftpTransfer::partName(dest, "mine")));
    QVERIFY(theirs.open(QIODevice::ReadOnly));
    QCOMPARE(theirs.readAll(), QByteArray("half of their upload"));
  }

  void otherThreadIsStopped() {
    QProcess probe;
    probe.start(OWNER_CHECK_PROBE, {m_server.spec(), m_server.clientKey(), m_server.path("kh_probe")});
    QVERIFY(probe.waitForFinished(20000));
    const QString err = QString::fromUtf8(probe.readAllStandardError());
    QVERIFY2(err.contains("connected; probing"), qPrintable(err));
    QCOMPARE(probe.exitStatus(), QProcess::CrashExit);  // qFatal aborts
    QVERIFY2(err.contains("does not own"), qPrintable(err));
    QVERIFY(!err.contains("allowed through"));
  }

  // Last: it replaces the server's host key.
  void changedKeyRefusedBeforeAuthentication() {
    const QString kh = m_server.path("kh_changed");
    SshConnection c;
    ConnectCallbacks remember;
    remember.confirmHostKey = [](const HostKeyInfo&) { return HostKeyDecision::AcceptAndRemember; };
    c.connect(target(kh), remember);
    c.disconnect();
    QTRY_VERIFY_WITH_TIMEOUT(m_server.log().contains("Accepted publickey"), 2000);  // the log does show auth
    QCOMPARE(m_server.restartWithNewHostKey(), QString());
    const qsizetype logBefore = m_server.log().size();
    bool asked = false;
    ConnectCallbacks cb;
    cb.confirmHostKey = [&](const HostKeyInfo&) {
      asked = true;
      return HostKeyDecision::AcceptAndRemember;
    };
    try {
      c.connect(target(kh), cb);
      QFAIL("a changed host key was accepted");
    } catch (const SshError& e) {
      QCOMPARE(e.kind(), SshError::Kind::HostKeyChanged);
      QVERIFY2(e.message().contains(kh + ":1"), qPrintable(e.message()));
      QVERIFY2(e.message().contains(fingerprintOf(m_server.path("host_key.pub"))), qPrintable(e.message()));
    }
    QVERIFY(!asked);
    // Closed from this side; sshd's last line for the connection says so, then the log is whole.
    c.disconnect();
    QTRY_VERIFY2_WITH_TIMEOUT(m_server.log().mid(logBefore).contains("Connection closed") ||
                                  m_server.log().mid(logBefore).contains("Disconnected from"),
                              qPrintable(m_server.log().mid(logBefore)), 10000);
    const QString log = m_server.log().mid(logBefore);
    QVERIFY2(log.contains("Connection from 127.0.0.1"), qPrintable(log));
    QVERIFY2(!log.contains("authenticating user") && !log.contains("Accepted") && !log.contains("Failed") &&
                 !log.contains("Postponed"),
             qPrintable(log));
  }
};

QTEST_GUILESS_MAIN(SshdTest)
#include "sshd_test.moc"
