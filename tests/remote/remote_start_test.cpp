// How a remote start ends when the host keeps saying no, against real OpenSSH servers on
// loopback: one without `Subsystem sftp` (as on minimal images) is said to lack SFTP, with the
// fix, by a transfer, by the connection test and by a start, within seconds and without a
// reconnect (also one whose sftp-server program is missing); one that drops the connection
// whenever the work-folder command runs (a ForceCommand that kills the test's ProxyCommand)
// ends the start after three such failures.
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "check_ssh.h"
#include "remote_host.h"
#include "remote_job.h"
#include "runlog/run_directory.h"
#include "sftp_transfer.h"
#include "ssh_connection.h"
#include "ssh_error.h"
#include "sshd_server.h"

using namespace traindeck;
using traindeck::test::SshdServer;

namespace {

// What every message about a host without SFTP says: what is missing and the two ways to fix it.
bool namesTheSftpFix(const QString& message) {
  return message.contains("no SFTP") && message.contains("openssh-sftp-server") &&
         message.contains("`Subsystem sftp internal-sftp`");
}

}  // namespace

class RemoteStartTest : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  SshdServer m_noSftp;  // started once: the host without SFTP

  SshTarget target(const SshdServer& server, const QString& proxyPidFile = {}) {
    SshTarget t = SshTarget::parse(server.spec());
    t.identityFiles << server.clientKey();
    t.knownHostsFile = server.path("known_hosts");
    t.batch = true;
    if (!proxyPidFile.isEmpty()) t.proxyCommand = server.proxyCommand(proxyPidFile);
    return t;
  }

  RemoteLaunch launchOn(const SshdServer& server, const QString& name, const QString& proxyPidFile = {}) {
    RemoteLaunch launch;
    launch.target = target(server, proxyPidFile);
    launch.workDir = m_dir.filePath(name + "/work");
    launch.configBaseDir = m_dir.path();
    launch.localRunDir = m_dir.filePath(name + "/runs/r1");
    launch.payloadDir = TRAINDECK_REMOTE_PAYLOAD;
    return launch;
  }

 private slots:
  void initTestCase() {
    if (const QString missing = SshdServer::missingPackage(); !missing.isEmpty())
      QSKIP(qPrintable("install " + missing + " to run the SSH tests"));
    qunsetenv("SSH_AUTH_SOCK");
    m_noSftp.setSftp(false);
    QCOMPARE(m_noSftp.start(), QString());
    QVERIFY(m_noSftp.writeKnownHosts(m_noSftp.path("known_hosts")));
  }

  void aTransferToAHostWithoutSftpSaysWhatIsMissing() {
    SshConnection connection;
    connection.connect(target(m_noSftp), {});
    SftpTransfer sftp(connection);
    try {
      sftp.upload(QStringLiteral(TRAINDECK_REMOTE_PAYLOAD) + "/traindeck-remote.sh", m_dir.filePath("up.sh"));
      QFAIL("an upload to a host without SFTP went through");
    } catch (const SshError& e) {
      QCOMPARE(e.kind(), SshError::Kind::NoSftp);  // not LinkLost: a reconnect would not help
      QVERIFY2(namesTheSftpFix(e.message()), qPrintable(e.message()));
    }
    QVERIFY(connection.probe());  // the link itself is fine

    // Through RemoteHost: the transfer fails at once, and the link is never taken for lost.
    RemoteHost host(target(m_noSftp));
    QSignalSpy ready(&host, &RemoteHost::readyChanged);
    QSignalSpy lost(&host, &RemoteHost::linkLost);
    QSignalSpy failed(&host, &RemoteHost::operationFailed);
    host.connectToHost();
    QVERIFY(ready.wait(10000));
    const int id =
        host.upload(QStringLiteral(TRAINDECK_REMOTE_PAYLOAD) + "/traindeck-remote.sh", m_dir.filePath("up2.sh"));
    QVERIFY(failed.wait(5000));
    QCOMPARE(failed.first().at(0).toInt(), id);
    QVERIFY2(namesTheSftpFix(failed.first().at(1).toString()), qPrintable(failed.first().at(1).toString()));
    QCOMPARE(lost.count(), 0);
    QVERIFY(host.isReady());
  }

  // Debian's sshd_config names /usr/lib/openssh/sftp-server, which openssh-sftp-server brings:
  // without it sshd accepts the subsystem, then the program is not there.
  void aMissingSftpServerProgramIsSaidTheSameWay() {
    SshdServer server;
    server.setSftp(false);
    server.setExtraConfig("Subsystem sftp /nonexistent/openssh/sftp-server\n");
    QCOMPARE(server.start(), QString());
    QVERIFY(server.writeKnownHosts(server.path("known_hosts")));
    SshConnection connection;
    connection.connect(target(server), {});
    try {
      SftpTransfer(connection).open();
      QFAIL("SFTP opened without an sftp-server");
    } catch (const SshError& e) {
      QCOMPARE(e.kind(), SshError::Kind::NoSftp);
      QVERIFY2(namesTheSftpFix(e.message()), qPrintable(e.message()));
    }
  }

  void theConnectionTestChecksSftp() {
    CheckSshOptions options;
    options.spec = m_noSftp.spec();
    options.identityFile = m_noSftp.clientKey();
    options.knownHostsFile = m_noSftp.path("known_hosts");
    options.configFile = m_dir.filePath("no_ssh_config");
    options.batch = true;
    const CheckSshResult r = checkSsh(options, {});
    QVERIFY(!r.ok);
    QVERIFY2(r.line.startsWith("failed: ") && r.line.contains("ran `true`") && namesTheSftpFix(r.line),
             qPrintable(r.line));
    QCOMPARE(r.line.count('\n'), 0);
  }

  // The start fails at its first upload (the helper, right after the work folder), naming SFTP.
  void aStartOnAHostWithoutSftpFailsNamingIt() {
    const RemoteLaunch launch = launchOn(m_noSftp, "nosftp");
    RemoteJob job;
    QSignalSpy failed(&job, &Job::failedToStart);
    QElapsedTimer clock;
    clock.start();
    job.start(launch);
    QVERIFY(failed.wait(15000));
    qInfo("a start on a host without SFTP failed after %lld ms", clock.elapsed());
    const QString reason = failed.first().at(0).toString();
    QVERIFY2(namesTheSftpFix(reason), qPrintable(reason));
    QCOMPARE(job.state(), Job::State::Finished);
    const RunInfoReadResult read = readRunInfo(RunPaths{launch.localRunDir.toStdString()});
    QVERIFY(read.ok());
    QCOMPARE(read.info.status, RunStatus::Failed);
    QVERIFY2(namesTheSftpFix(QString::fromStdString(read.info.exitReason)), read.info.exitReason.c_str());
  }

  // The host drops the connection each time the work folder is made: the step is run again after
  // each reconnect, and the third failure in a row, the same each time, ends the start.
  void aStepThatFailsTheSameWayEndsTheStart() {
    const QString pidFile = m_dir.filePath("drop/proxy.pid");
    QVERIFY(QDir().mkpath(m_dir.filePath("drop")));
    const QString script = m_dir.filePath("drop/force.sh");
    QFile f(script);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QString("case \"$SSH_ORIGINAL_COMMAND\" in\n"
                    "  *'umask 077'*) kill -9 \"$(cat '%1')\"; sleep 10; exit 1 ;;\n"
                    "esac\n"
                    "exec /bin/sh -c \"$SSH_ORIGINAL_COMMAND\"\n")
                .arg(pidFile)
                .toUtf8());
    f.close();
    SshdServer server;
    server.setExtraConfig("ForceCommand /bin/sh " + script + "\n");
    QCOMPARE(server.start(), QString());
    QVERIFY(server.writeKnownHosts(server.path("known_hosts")));
    const RemoteLaunch launch = launchOn(server, "drop", pidFile);
    RemoteJob job;
    QSignalSpy failed(&job, &Job::failedToStart);
    QElapsedTimer clock;
    clock.start();
    job.start(launch);
    QVERIFY(failed.wait(60000));
    qInfo("the start ended after %lld ms, %lld runs of the work-folder step", clock.elapsed(),
          static_cast<long long>(job.steps().size() - 1));
    const QString reason = failed.first().at(0).toString();
    QVERIFY2(reason.startsWith("work folder failed 3 times: ") && reason.contains("lost"), qPrintable(reason));
    QVERIFY(job.steps().size() >= 4);  // connect, then the work folder at least 3 times
    QCOMPARE(job.state(), Job::State::Finished);
    QVERIFY(!QDir(launch.workDir).exists());
  }
};

QTEST_GUILESS_MAIN(RemoteStartTest)
#include "remote_start_test.moc"
