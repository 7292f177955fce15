// ProxyProcess: a ProxyCommand run by us rather than by libssh, so its stderr can be shown
// when the connection fails (libssh's own ProxyCommand discards it). The command runs as
// `sh -c CMD` in its own process group with one end of a socketpair as stdin and stdout.
// Owned by the thread that owns the SshConnection using it.
#pragma once

#include <sys/types.h>
#include <QByteArray>
#include <QString>

namespace traindeck {

class ProxyProcess {
 public:
  // Starts the command; throws SshError(Proxy) if it cannot.
  explicit ProxyProcess(const QString& command);
  ~ProxyProcess();  // kills the process group (SIGKILL works on a stopped one) and reaps it
  ProxyProcess(const ProxyProcess&) = delete;
  ProxyProcess& operator=(const ProxyProcess&) = delete;

  // A new descriptor for our end of the socketpair; the caller owns it (libssh closes the one
  // given with SSH_OPTIONS_FD on disconnect).
  int duplicateSocket() const;
  pid_t pid() const { return m_pid; }
  // What the proxy wrote to stderr so far (the last 4 KiB), trimmed.
  QString stderrText();
  // "exited with status N" / "was killed by signal N" / empty while it runs.
  QString exitDescription();

 private:
  void drainStderr();

  pid_t m_pid = -1;
  int m_socket = -1;
  int m_stderr = -1;
  int m_status = -1;
  bool m_reaped = false;
  QByteArray m_stderrText;
};

}  // namespace traindeck
