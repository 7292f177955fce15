// fork/exec of the ProxyCommand. Between fork and exec the child only calls async-signal-safe
// functions, because the parent has other threads (Qt's, other hosts' workers).
#include "proxy_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ssh_error.h"

namespace traindeck {

namespace {
constexpr qsizetype kStderrKeep = 4096;
}

ProxyProcess::ProxyProcess(const QString& command) {
  int sv[2];
  int err[2];
  const auto fail = [] {
    return SshError(SshError::Kind::Proxy, QString("Cannot start the ProxyCommand: %1 (too many open files? close "
                                                   "some connections).")
                                               .arg(QString::fromLocal8Bit(std::strerror(errno))));
  };
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) throw fail();
  if (::pipe2(err, O_CLOEXEC) != 0) {
    const SshError error = fail();
    ::close(sv[0]);
    ::close(sv[1]);
    throw error;
  }
  const QByteArray cmd = command.toLocal8Bit();
  m_pid = ::fork();
  if (m_pid == 0) {
    ::setpgid(0, 0);  // its own group, so that killing it reaches what `sh -c` started
    ::dup2(sv[1], 0);
    ::dup2(sv[1], 1);
    ::dup2(err[1], 2);
    ::execl("/bin/sh", "sh", "-c", cmd.constData(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(sv[1]);
  ::close(err[1]);
  if (m_pid < 0) {
    ::close(sv[0]);
    ::close(err[0]);
    throw SshError(SshError::Kind::Proxy,
                   QString("Cannot start the ProxyCommand: %1.").arg(QString::fromLocal8Bit(std::strerror(errno))));
  }
  ::setpgid(m_pid, m_pid);  // also from here: whichever runs first wins the race
  m_socket = sv[0];
  m_stderr = err[0];
  ::fcntl(m_stderr, F_SETFL, ::fcntl(m_stderr, F_GETFL) | O_NONBLOCK);
}

ProxyProcess::~ProxyProcess() {
  if (m_socket >= 0) ::close(m_socket);
  if (m_pid > 0) {
    ::kill(-m_pid, SIGKILL);  // the whole group: `sh -c` may not have exec'd the proxy
    if (!m_reaped) {
      ::kill(m_pid, SIGKILL);
      ::waitpid(m_pid, nullptr, 0);
    }
  }
  if (m_stderr >= 0) ::close(m_stderr);
}

int ProxyProcess::duplicateSocket() const {
  return ::fcntl(m_socket, F_DUPFD_CLOEXEC, 0);
}

void ProxyProcess::drainStderr() {
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(m_stderr, buf, sizeof buf);
    if (n <= 0) break;
    m_stderrText.append(buf, n);
  }
  if (m_stderrText.size() > kStderrKeep) m_stderrText = m_stderrText.right(kStderrKeep);
}

QString ProxyProcess::stderrText() {
  drainStderr();
  return QString::fromLocal8Bit(m_stderrText).trimmed();
}

QString ProxyProcess::exitDescription() {
  if (!m_reaped && m_pid > 0) {
    int status = 0;
    if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
      m_reaped = true;
      m_status = status;
    }
  }
  if (!m_reaped) return QString();
  if (WIFEXITED(m_status)) return QString("exited with status %1").arg(WEXITSTATUS(m_status));
  if (WIFSIGNALED(m_status)) return QString("was killed by signal %1").arg(WTERMSIG(m_status));
  return QString();
}

}  // namespace traindeck
