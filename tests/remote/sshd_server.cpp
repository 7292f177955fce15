// The test sshd: config, keys, start/stop, readiness by connecting to its port.
#include "sshd_server.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>
#include <csignal>

namespace traindeck::test {

SshdServer::SshdServer() = default;

SshdServer::~SshdServer() {
  stop();
}

QString SshdServer::missingPackage() {
  if (!QFile::exists("/usr/sbin/sshd")) return "openssh-server (for /usr/sbin/sshd)";
  if (QStandardPaths::findExecutable("ssh-keygen").isEmpty()) return "openssh-client (for ssh-keygen)";
  if (QStandardPaths::findExecutable("socat").isEmpty()) return "socat";
  return QString();
}

QString SshdServer::pamUnavailable() {
  if (::geteuid() != 0) return "runs as root only (sshd's PAM and a bind mount over /etc/pam.d/sshd)";
  if (QStandardPaths::findExecutable("unshare").isEmpty()) return "util-linux (for unshare) is not installed";
  if (!QFile::exists("/etc/pam.d/sshd")) return "openssh-server's /etc/pam.d/sshd is missing";
  QProcess p;
  p.start("unshare", {"-m", "true"});
  if (!p.waitForFinished(10000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
    return "`unshare -m` does not work here (no mount namespaces in this container): " +
           QString::fromUtf8(p.readAllStandardError()).trimmed();
  return QString();
}

QString SshdServer::user() const {
  QString u = qEnvironmentVariable("USER");
  if (u.isEmpty()) u = ::geteuid() == 0 ? "root" : qEnvironmentVariable("LOGNAME");
  return u;
}

QString SshdServer::spec() const {
  return QString("%1@127.0.0.1:%2").arg(user()).arg(m_port);
}

QString SshdServer::keygen(const QString& name) {
  QFile::remove(path(name));
  QFile::remove(path(name + ".pub"));
  QProcess p;
  p.start("ssh-keygen", {"-q", "-t", "ed25519", "-N", "", "-C", name, "-f", path(name)});
  if (!p.waitForFinished(10000) || p.exitCode() != 0)
    return "ssh-keygen failed: " + QString::fromUtf8(p.readAllStandardError());
  return QString();
}

namespace {
// Whether this sshd knows a configuration option: `sshd -t` refuses one it does not.
bool sshdTakes(const QString& config, const QString& option) {
  QProcess check;
  check.start("/usr/sbin/sshd", {"-t", "-f", config, "-o", option});
  return check.waitForFinished(10000) && check.exitStatus() == QProcess::NormalExit && check.exitCode() == 0;
}
}  // namespace

QString SshdServer::start() {
  if (!m_dir.isValid()) return "no temporary directory";
  if (m_port == 0) {
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0)) return "no free port";
    m_port = probe.serverPort();
    for (const char* key : {"host_key", "client_key", "wrong_key"})
      if (QString e = keygen(key); !e.isEmpty()) return e;
    QFile::copy(path("client_key.pub"), path("authorized_keys"));
  }
  if (::geteuid() == 0) QDir().mkpath("/run/sshd");  // sshd's privilege separation directory
  QFile config(path("sshd_config"));
  if (!config.open(QIODevice::WriteOnly)) return "cannot write sshd_config";
  // With PAM: root may log in by keyboard-interactive too (prohibit-password forbids it), still
  // only after its key.
  const QString auth = m_pamFile.isEmpty()
                           ? "UsePAM no\nKbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n"
                           : "UsePAM yes\nKbdInteractiveAuthentication yes\nPermitRootLogin yes\n"
                             "AuthenticationMethods publickey,keyboard-interactive\n";
  config.write(QString("Port %1\nListenAddress 127.0.0.1\nHostKey %2\nPidFile %3\nAuthorizedKeysFile %4\n"
                       "StrictModes no\nPasswordAuthentication no\n%5AllowTcpForwarding yes\n"
                       "MaxSessions 100\nMaxStartups 100\nUseDNS no\nPrintMotd no\nLogLevel VERBOSE\n")
                   .arg(m_port)
                   .arg(path("host_key"), path("sshd.pid"), path("authorized_keys"), auth)
                   .toUtf8() +
               (m_sftp ? "Subsystem sftp internal-sftp\n" : "") + m_extraConfig.toUtf8());
  config.close();
  // OpenSSH 9.8+ (Debian 13) refuses an address for a while once its failed logins add up
  // (PerSourcePenalties): these tests fail logins on purpose, and the next one must connect.
  if (sshdTakes(path("sshd_config"), "PerSourcePenalties=no") && config.open(QIODevice::Append)) {
    config.write("PerSourcePenalties no\n");
    config.close();
  }
  m_sshd.setProcessChannelMode(QProcess::MergedChannels);
  m_sshd.setStandardOutputFile(path("sshd.log"), QIODevice::Append);
  // If the test dies without running destructors (an abort, an uncaught exception), sshd goes too.
  m_sshd.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
  if (m_pamFile.isEmpty())
    m_sshd.start("/usr/sbin/sshd", {"-D", "-e", "-f", path("sshd_config")});
  else  // PAM's service name is fixed ("sshd"): its file is replaced in this sshd's namespace only
    m_sshd.start("unshare",
                 {"-m", "sh", "-c", "mount --bind \"$0\" /etc/pam.d/sshd && exec /usr/sbin/sshd -D -e -f \"$1\"",
                  m_pamFile, path("sshd_config")});
  if (!m_sshd.waitForStarted(5000)) return "sshd did not start: " + m_sshd.errorString();
  for (int i = 0; i < 100; ++i) {
    QTcpSocket s;
    s.connectToHost(QHostAddress::LocalHost, m_port);
    if (s.waitForConnected(200)) return QString();
    if (m_sshd.state() == QProcess::NotRunning) break;
    QThread::msleep(50);
  }
  return "sshd did not come up: " + log();
}

void SshdServer::stop() {
  if (m_sshd.state() == QProcess::NotRunning) return;
  m_sshd.terminate();
  if (!m_sshd.waitForFinished(5000)) {
    m_sshd.kill();
    m_sshd.waitForFinished(5000);
  }
}

QString SshdServer::restartWithNewHostKey() {
  stop();
  if (QString e = keygen("host_key"); !e.isEmpty()) return e;
  return start();
}

QString SshdServer::log() const {
  QFile f(m_dir.filePath("sshd.log"));
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

bool SshdServer::writeKnownHosts(const QString& file) const {
  QFile pub(path("host_key.pub"));
  if (!pub.open(QIODevice::ReadOnly)) return false;
  const QList<QByteArray> key = pub.readAll().trimmed().split(' ');
  QFile out(file);
  if (key.size() < 2 || !out.open(QIODevice::WriteOnly)) return false;
  return out.write(QString("[127.0.0.1]:%1 ").arg(m_port).toUtf8() + key[0] + " " + key[1] + "\n") > 0;
}

QString SshdServer::proxyCommand(const QString& pidFile) const {
  return QString("echo $$ > %1; exec socat - TCP:127.0.0.1:%2").arg(pidFile).arg(m_port);
}

qint64 SshdServer::readPid(const QString& pidFile) {
  QFile f(pidFile);
  if (!f.open(QIODevice::ReadOnly)) return -1;
  bool ok = false;
  const qint64 pid = f.readAll().trimmed().toLongLong(&ok);
  return ok ? pid : -1;
}

QString SshdServer::processStartTime(qint64 pid) {
  QFile f(QString("/proc/%1/stat").arg(pid));
  if (!f.open(QIODevice::ReadOnly)) return QString();
  const QString stat = QString::fromLatin1(f.readAll());
  return stat.mid(stat.lastIndexOf(')') + 2).split(' ').value(19);  // after the command's name
}

}  // namespace traindeck::test
