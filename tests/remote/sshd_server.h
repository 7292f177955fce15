// SshdServer: a private OpenSSH server for tests, on 127.0.0.1 and a free port, with a host
// key, an authorized client key and a second (unauthorized) key made by ssh-keygen in a
// temporary directory; sshd -e writes its log (LogLevel VERBOSE) to log(). Stopped on
// destruction. Needs openssh-server, openssh-client (ssh-keygen) and socat for the proxy path.
#pragma once

#include <QProcess>
#include <QString>
#include <QTemporaryDir>

namespace traindeck::test {

class SshdServer {
 public:
  SshdServer();
  ~SshdServer();

  // Which package is missing, or empty when the tools are all there.
  static QString missingPackage();
  // Lines added to sshd_config (e.g. "SetEnv PATH=..." for a host that lacks a tool). Before start().
  void setExtraConfig(const QString& lines) { m_extraConfig = lines; }
  // Without the `Subsystem sftp` line: a minimal image's sshd, which refuses SFTP. Before start().
  void setSftp(bool offered) { m_sftp = offered; }
  // A second factor after the key (an MFA login node): UsePAM, keyboard-interactive and
  // `AuthenticationMethods publickey,keyboard-interactive`, with pamFile as PAM's "sshd"
  // service (bind-mounted over /etc/pam.d/sshd in a mount namespace of its own: root and
  // unshare, see pamUnavailable()). Before start().
  void setPamService(const QString& pamFile) { m_pamFile = pamFile; }
  // Why setPamService() cannot work here, or empty.
  static QString pamUnavailable();
  // Starts sshd; returns an error text (empty on success).
  QString start();
  void stop();
  // Stops, makes a new host key, starts again on the same port (a "changed" key).
  QString restartWithNewHostKey();

  quint16 port() const { return m_port; }
  QString dir() const { return m_dir.path(); }
  QString path(const QString& name) const { return m_dir.filePath(name); }
  QString clientKey() const { return path("client_key"); }
  QString wrongKey() const { return path("wrong_key"); }
  QString knownHosts() const { return path("known_hosts"); }
  QString user() const;
  QString spec() const;  // user@127.0.0.1:port
  QString log() const;   // what sshd -e wrote so far
  // Writes a known_hosts file that knows this server's host key; false when it could not.
  bool writeKnownHosts(const QString& file) const;
  // A ProxyCommand through socat that writes its shell's pid to pidFile (to kill or freeze it).
  QString proxyCommand(const QString& pidFile) const;
  // The pid of the socat-based proxy written by proxyCommand(pidFile), or -1.
  static qint64 readPid(const QString& pidFile);
  // A process's start time on this machine (the test host), as the helper's start_time gives
  // it: /proc/PID/stat's 22nd field; empty when no such process runs.
  static QString processStartTime(qint64 pid);

 private:
  QString keygen(const QString& name);
  QTemporaryDir m_dir;
  QProcess m_sshd;
  quint16 m_port = 0;
  QString m_extraConfig;
  bool m_sftp = true;
  QString m_pamFile;
};

}  // namespace traindeck::test
