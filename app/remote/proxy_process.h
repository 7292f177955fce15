// ProxyProcess: a ProxyCommand run by us rather than by libssh, so its stderr can be shown
// when the connection fails (libssh's own ProxyCommand discards it). The command runs as
// `sh -c CMD` in its own process group with one end of a socketpair as stdin and stdout.
// Owned by the thread that owns the SshConnection using it; a reader thread of its own drains
// the proxy's stderr all the time, so a chatty proxy never stalls on a full pipe while libssh
// blocks in a call (a verbose cloudflared or socat -d -d -d -d writes a line per packet).
#pragma once

#include <sys/types.h>
#include <QByteArray>
#include <QString>

#include <condition_variable>
#include <mutex>
#include <thread>

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
  // What the proxy wrote to stderr (the last 4 KiB), trimmed, for a message: waits up to 300 ms
  // for the pipe's end, so that a proxy that just exited has had its last words read.
  QString stderrText();
  // "exited with status N" / "was killed by signal N" / empty while it runs.
  QString exitDescription();

 private:
  void readStderr();  // the reader thread: until EOF or m_wake is written

  pid_t m_pid = -1;
  int m_socket = -1;
  int m_stderr = -1;
  int m_wake[2] = {-1, -1};  // a byte written to m_wake[1] stops the reader
  int m_status = -1;
  bool m_reaped = false;
  std::mutex m_textMutex;
  QByteArray m_stderrText;  // the last 4 KiB, under m_textMutex
  bool m_stderrClosed = false;  // the reader saw EOF, under m_textMutex
  std::condition_variable m_closed;
  std::thread m_reader;
};

}  // namespace traindeck
