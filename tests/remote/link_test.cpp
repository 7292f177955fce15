// RemoteHost through a socat ProxyCommand that the test kills or freezes: readiness gating,
// streamed exec by signals (15 MB whole and in order), dead-link detection (killed: at the next probe; frozen with
// SIGSTOP: when a probe times out), reconnect with backoff, a download cut mid-way that
// resumes after the reconnect with an equal checksum, the proxy's stderr in messages, and a
// close that waits out neither a connect that hangs nor a probe of a frozen link.
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <csignal>
#include <thread>

#include "remote_host.h"
#include "shell_quote.h"
#include "ssh_connection.h"
#include "ssh_error.h"
#include "sshd_server.h"
#include "test_streams.h"

using namespace traindeck;
using traindeck::test::SshdServer;

namespace {
constexpr int kKeepaliveMs = 1000;
constexpr int kLinkTimeoutMs = 3000;
// A dead link is found within one probe interval plus the probe's timeout; the slack covers a
// loaded machine's scheduling. The tests wait longer than this, so that a late detection fails
// the bound, not the wait.
constexpr int kDetectionBoundMs = kKeepaliveMs + kLinkTimeoutMs + 5000;
}  // namespace

class LinkTest : public QObject {
  Q_OBJECT
  SshdServer m_server;

  SshTarget target(const QString& pidFile) {
    SshTarget t = SshTarget::parse(m_server.spec());
    t.identityFiles << m_server.clientKey();
    t.knownHostsFile = m_server.path("known_hosts");
    t.proxyCommand = m_server.proxyCommand(pidFile);
    return t;
  }

  // Reads a PatternServer's stream through a tunnel's local port, while this thread's event loop
  // runs: true when all of it arrived intact within timeoutMs.
  static bool fetchPattern(quint16 port, qint64 expected, int timeoutMs) {
    qint64 size = 0;
    bool intact = false;
    std::atomic<bool> done{false};
    std::thread client([&] {
      test::readPatternFrom(port, &size, &intact);
      done = true;
    });
    const bool finished = QTest::qWaitFor([&] { return done.load(); }, timeoutMs);
    client.join();
    return finished && size == expected && intact;
  }

  // A connected RemoteHost; host keys are accepted once (and so asked once per RemoteHost).
  std::unique_ptr<RemoteHost> connectedHost(const QString& pidFile, int* prompts = nullptr,
                                            int keepaliveMs = kKeepaliveMs, int linkTimeoutMs = kLinkTimeoutMs) {
    auto host = std::make_unique<RemoteHost>(target(pidFile));
    host->setKeepalive(keepaliveMs, linkTimeoutMs);
    host->setHostKeyPrompt([prompts](const HostKeyInfo&) {
      if (prompts != nullptr) ++*prompts;
      return HostKeyDecision::AcceptOnce;
    });
    QSignalSpy ready(host.get(), &RemoteHost::readyChanged);
    host->connectToHost();
    if (!ready.wait(10000) || !host->isReady()) return nullptr;
    return host;
  }

  // How long closing a RemoteHost (its destructor) takes, in ms.
  static qint64 msToClose(std::unique_ptr<RemoteHost>& host) {
    QElapsedTimer closing;
    closing.start();
    host.reset();
    return closing.elapsed();
  }

 private slots:
  void initTestCase() {
    if (const QString missing = SshdServer::missingPackage(); !missing.isEmpty())
      QSKIP(qPrintable("install " + missing + " to run the SSH tests"));
    qunsetenv("SSH_AUTH_SOCK");
    const QString error = m_server.start();
    if (!error.isEmpty()) QSKIP(qPrintable("cannot run sshd here: " + error));
  }

  void readinessGatesAndExecStreams() {
    RemoteHost host(target(m_server.path("p0.pid")));
    QVERIFY(!host.isReady());
    QSignalSpy failed(&host, &RemoteHost::operationFailed);
    host.exec("true");  // before connecting: refused, not queued
    QVERIFY(failed.wait(5000));
    QVERIFY(failed.first().at(1).toString().contains("Not connected"));
    host.setHostKeyPrompt([](const HostKeyInfo&) { return HostKeyDecision::AcceptOnce; });
    QSignalSpy ready(&host, &RemoteHost::readyChanged);
    QSignalSpy state(&host, &RemoteHost::stateChanged);
    host.connectToHost();
    QVERIFY(ready.wait(10000));
    QVERIFY(host.isReady());
    QCOMPARE(state.first().at(0).value<LinkState>(), LinkState::Connecting);
    QByteArray out, err;
    connect(&host, &RemoteHost::execOutputAvailable, this,
            [&](int, const QByteArray& b, bool isStderr) { (isStderr ? err : out) += b; });
    QSignalSpy finished(&host, &RemoteHost::execFinished);
    host.exec("for i in 1 2 3; do echo out$i; echo err$i >&2; done; exit 4");
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.first().at(1).toInt(), 4);
    QCOMPARE(out, QByteArray("out1\nout2\nout3\n"));
    QCOMPARE(err, QByteArray("err1\nerr2\nerr3\n"));
  }

  void proxyStderrIsShown() {
    SshTarget t = target(m_server.path("px.pid"));
    t.proxyCommand = "echo 'cloudflared: no such tunnel colab-xyz' >&2; exit 3";
    SshConnection c;
    try {
      c.connect(t, {});
      QFAIL("connected through a proxy that exits");
    } catch (const SshError& e) {
      QVERIFY2(e.message().contains("no such tunnel colab-xyz"), qPrintable(e.message()));
    }
  }

  void closingWhileConnectingDoesNotWaitForTheTimeout() {
    // A proxy that never answers (a tunnel still starting): the connect would wait 15 s for the
    // server's banner. Closing (the app quits, a dialog is cancelled) ends it at once instead.
    SshTarget t = target(m_server.path("silent.pid"));
    t.proxyCommand = "exec sleep 120";
    auto host = std::make_unique<RemoteHost>(t);
    QSignalSpy state(host.get(), &RemoteHost::stateChanged);
    host->connectToHost();
    QVERIFY(QTest::qWaitFor([&] { return host->state() == LinkState::Connecting; }, 5000));
    QTest::qWait(300);  // inside the connect by now
    const qint64 ms = msToClose(host);
    QVERIFY2(ms < 5000, qPrintable(QString("closing took %1 ms").arg(ms)));
  }

  void closingOnAFrozenLinkDoesNotWaitForTheProbe() {
    // The link freezes (the proxy stopped) while a keepalive probe waits for its answer, here
    // for up to 20 s: closing cuts the socket under the probe instead of waiting it out.
    const QString pidFile = m_server.path("frozen-close.pid");
    auto host = connectedHost(pidFile, nullptr, 300, 20000);
    QVERIFY(host);
    const qint64 pid = SshdServer::readPid(pidFile);
    QVERIFY(pid > 0);
    ::kill(static_cast<pid_t>(pid), SIGSTOP);
    QTest::qWait(1000);  // a probe is under way and has no answer
    const qint64 ms = msToClose(host);
    ::kill(static_cast<pid_t>(pid), SIGKILL);  // gone with the host already; harmless
    QVERIFY2(ms < 5000, qPrintable(QString("closing took %1 ms").arg(ms)));
  }

  void closingWhileLoggingInDoesNotWaitForTheTimeout() {
    // The link freezes after the key exchange (the proxy stopped as the host key is shown), so
    // the login waits up to 15 s for the server: closing cuts the socket under the login.
    const QString pidFile = m_server.path("frozen-login.pid");
    auto host = std::make_unique<RemoteHost>(target(pidFile));
    qint64 frozen = 0;
    host->setHostKeyPrompt([&](const HostKeyInfo&) {
      frozen = SshdServer::readPid(pidFile);
      if (frozen > 0) ::kill(static_cast<pid_t>(frozen), SIGSTOP);
      return HostKeyDecision::AcceptOnce;
    });
    host->connectToHost();
    QVERIFY(QTest::qWaitFor([&] { return frozen > 0; }, 10000));
    QTest::qWait(1000);  // the login is under way and has no answer
    QCOMPARE(host->state(), LinkState::Connecting);
    const qint64 ms = msToClose(host);
    ::kill(static_cast<pid_t>(frozen), SIGKILL);
    QVERIFY2(ms < 5000, qPrintable(QString("closing took %1 ms").arg(ms)));
  }

  void chattyProxyDoesNotStall() {
    // socat -d -d -d -d logs every transfer on stderr: unread, that pipe would fill (64 KiB)
    // and freeze the proxy, as a verbose cloudflared would.
    SshConnection c;
    SshTarget t = target(m_server.path("chatty.pid"));
    t.proxyCommand = QString("exec socat -d -d -d -d - TCP:127.0.0.1:%1").arg(m_server.port());
    ConnectCallbacks cb;
    cb.confirmHostKey = [](const HostKeyInfo&) { return HostKeyDecision::AcceptOnce; };
    c.connect(t, cb);
    const QString file = m_server.path("chatty_src");
    test::writeRandomFile(file, 8 << 20, 23);
    int status = -1;
    const QByteArray out = c.execCapture("cat " + file, &status);
    QCOMPARE(status, 0);
    QCOMPARE(out.size(), 8 << 20);
    QVERIFY(c.probe());
  }

  void killedProxyDetectedAndReconnected() {
    const QString pidFile = m_server.path("p1.pid");
    int prompts = 0;
    auto host = connectedHost(pidFile, &prompts);
    QVERIFY(host);
    QSignalSpy lost(host.get(), &RemoteHost::linkLost);
    QSignalSpy back(host.get(), &RemoteHost::reconnected);
    const qint64 pid = SshdServer::readPid(pidFile);
    QVERIFY(pid > 0);
    QElapsedTimer t;
    t.start();
    ::kill(static_cast<pid_t>(pid), SIGKILL);
    QVERIFY(lost.wait(15000));
    const double detected = t.elapsed() / 1000.0;
    QVERIFY(!host->isReady());
    QVERIFY(back.wait(15000));
    qInfo("killed proxy: dead link detected in %.2f s, reconnected %.2f s later", detected,
          back.first().at(0).toDouble());
    QVERIFY2(detected * 1000 < kDetectionBoundMs, qPrintable(QString("detected after %1 s").arg(detected)));
    QVERIFY(host->isReady());
    QCOMPARE(prompts, 1);  // "accept once" holds across the reconnect
    QVERIFY(SshdServer::readPid(pidFile) != pid);
  }

  void frozenProxyDetected() {
    const QString pidFile = m_server.path("p2.pid");
    auto host = connectedHost(pidFile);
    QVERIFY(host);
    QSignalSpy lost(host.get(), &RemoteHost::linkLost);
    QSignalSpy back(host.get(), &RemoteHost::reconnected);
    const qint64 pid = SshdServer::readPid(pidFile);
    QElapsedTimer t;
    t.start();
    ::kill(static_cast<pid_t>(pid), SIGSTOP);
    QVERIFY(lost.wait(15000));
    const double detected = t.elapsed() / 1000.0;
    QVERIFY(back.wait(15000));
    qInfo(
        "frozen proxy (SIGSTOP): dead link detected in %.2f s (probe every %d ms, timeout %d ms), reconnected %.2f s "
        "later",
        detected, kKeepaliveMs, kLinkTimeoutMs, back.first().at(0).toDouble());
    QVERIFY2(detected * 1000 < kDetectionBoundMs, qPrintable(QString("detected after %1 s").arg(detected)));
    ::kill(static_cast<pid_t>(pid), SIGKILL);  // already killed when replaced; harmless
  }

  void tunnelSurvivesAReconnect() {
    const QString pidFile = m_server.path("p4.pid");
    auto host = connectedHost(pidFile);
    QVERIFY(host);
    test::PatternServer service(4 << 20);
    QSignalSpy available(host.get(), &RemoteHost::tunnelAvailable);
    const int id = host->openTunnel(service.port());
    QVERIFY(available.wait(5000));
    QCOMPARE(available.first().at(0).toInt(), id);
    const quint16 port = available.first().at(1).value<quint16>();
    const auto fetch = [&] { return fetchPattern(port, 4 << 20, 20000); };
    QVERIFY(fetch());
    QSignalSpy back(host.get(), &RemoteHost::reconnected);
    ::kill(static_cast<pid_t>(SshdServer::readPid(pidFile)), SIGKILL);
    QVERIFY(back.wait(15000));
    QVERIFY(fetch());  // same local port, new session
  }

  void aLargeOutputArrivesWholeAndInOrder() {
    // 15 MB through the proxy: the pump reads on while the socket has bytes and is woken by it
    // when it waits; nothing may be lost, doubled or reordered on the way, on either stream.
    const std::unique_ptr<RemoteHost> host = connectedHost(m_server.path("large.pid"));
    QVERIFY(host);
    QByteArray out, err;
    connect(host.get(), &RemoteHost::execOutputAvailable, this,
            [&](int, const QByteArray& b, bool isStderr) { (isStderr ? err : out) += b; });
    QSignalSpy finished(host.get(), &RemoteHost::execFinished);
    host->exec("seq 1 2000000; seq 1 1000 >&2");
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.first().at(1).toInt(), 0);
    const auto seq = [](int n) {  // what `seq 1 n` prints
      QByteArray text;
      for (int i = 1; i <= n; ++i) text += QByteArray::number(i) + '\n';
      return text;
    };
    const QByteArray want = seq(2000000);
    QCOMPARE(out.size(), want.size());
    QVERIFY(out == want);
    QCOMPARE(err, seq(1000));
  }

  // One connection, many things at once: a long command (a remote build) stalls neither a short
  // command, nor a tunnel, and commands asked for during a transfer run during it.
  void aLongCommandStallsNothing() {
    auto host = connectedHost(m_server.path("p6.pid"));
    QVERIFY(host);
    QSignalSpy finished(host.get(), &RemoteHost::execFinished);
    QElapsedTimer t;
    t.start();
    // The long command waits for a file this test makes at its end (a minute at most), so that
    // however slow the machine, it still runs while the others are asked for.
    const QString gate = m_server.path("p6.go");
    const int slow = host->exec("i=0; while [ ! -e " + shellQuote(gate) +
                                " ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done; echo slow");
    const int quick = host->exec("echo quick");
    // Order, not speed, shows it: the quick command ends while the slow one still waits.
    QVERIFY(QTest::qWaitFor([&] { return !finished.isEmpty(); }, 10000));
    QCOMPARE(finished.first().at(0).toInt(), quick);
    qInfo("a short command beside a long one took %.2f s", t.elapsed() / 1000.0);

    test::PatternServer service(1 << 20);
    QSignalSpy available(host.get(), &RemoteHost::tunnelAvailable);
    host->openTunnel(service.port());
    QVERIFY(available.wait(3000));
    const quint16 port = available.first().at(1).value<quint16>();
    QVERIFY(fetchPattern(port, 1 << 20, 5000));
    QVERIFY2(finished.count() == 1, "the tunnel waited for the long command");  // it sleeps on

    const QString source = m_server.path("during_src");
    test::writeRandomFile(source, 96 << 20, 29);
    QSignalSpy transferred(host.get(), &RemoteHost::transferFinished);
    QSignalSpy progress(host.get(), &RemoteHost::transferProgressChanged);
    host->upload(source, m_server.path("during_dst"));
    QVERIFY(progress.wait(10000));
    const int during = host->exec("echo during");
    QVERIFY(QTest::qWaitFor([&] { return finished.count() >= 2 || !transferred.isEmpty(); }, 30000));
    if (finished.count() < 2 || finished.at(1).at(0).toInt() != during) {
      QVERIFY(transferred.wait(30000));
      if (progress.count() < 3) QSKIP("the upload was over before the command was asked for");
      QFAIL("a command asked for during an upload waited for its end");
    }
    QVERIFY(!transferred.isEmpty() || transferred.wait(30000));
    QCOMPARE(finished.count(), 2);  // the long command still waits
    QVERIFY(QFile(gate).open(QIODevice::WriteOnly));
    QVERIFY(QTest::qWaitFor([&] { return finished.count() >= 3; }, 10000));
    QCOMPARE(finished.at(2).at(0).toInt(), slow);
    QCOMPARE(finished.at(2).at(1).toInt(), 0);
    QFile::remove(source);
  }

  void destructionCancelsALongTransfer() {
    const QString pidFile = m_server.path("p5.pid");
    auto host = connectedHost(pidFile);
    QVERIFY(host);
    const QString source = m_server.path("cancel_src");
    test::writeRandomFile(source, 100 << 20, 19);
    QSignalSpy progress(host.get(), &RemoteHost::transferProgressChanged);
    host->download(source, m_server.path("cancel_dst"));
    QVERIFY(progress.wait(10000));
    QElapsedTimer t;
    t.start();
    host.reset();
    qInfo("RemoteHost destroyed during a 100 MB download in %.2f s", t.elapsed() / 1000.0);
    QVERIFY(!QFile::exists(m_server.path("cancel_dst")));  // it was cut, not finished
    QFile::remove(source);
  }

  void downloadCutMidwayResumes() {
    const QString pidFile = m_server.path("p3.pid");
    auto host = connectedHost(pidFile);
    QVERIFY(host);
    const QString source = m_server.path("cut_src"), dest = m_server.path("cut_dst");
    const QByteArray sha = test::writeRandomFile(source, 50 << 20, 17);
    QSignalSpy lost(host.get(), &RemoteHost::linkLost);
    QSignalSpy done(host.get(), &RemoteHost::transferFinished);
    bool killed = false;
    connect(host.get(), &RemoteHost::transferProgressChanged, this, [&](int, qint64 bytes, qint64) {
      if (!killed && bytes > 0) {
        killed = true;
        ::kill(static_cast<pid_t>(SshdServer::readPid(pidFile)), SIGKILL);
      }
    });
    // The first progress report (sent at once, after the first 64 KiB) kills the proxy; on a
    // machine fast enough to finish 50 MB before that lands, nothing is cut and the test says so.
    host->download(source, dest);
    QVERIFY(done.wait(60000));
    const TransferResult r = done.first().at(1).value<TransferResult>();
    if (!killed) QSKIP("the download finished before the first progress report; nothing was cut");
    QCOMPARE(lost.count(), 1);
    qInfo("cut download: resumed from %.1f MB of 50", r.resumedFrom / 1048576.0);
    QVERIFY(r.resumedFrom > 0);
    QCOMPARE(r.sha256, sha);
    QFile f(dest);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex(), sha);
  }
};

QTEST_GUILESS_MAIN(LinkTest)
#include "link_test.moc"
