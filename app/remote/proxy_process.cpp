// fork/exec of the ProxyCommand. Between fork and exec the child only calls async-signal-safe
// functions, because the parent has other threads (Qt's, other hosts' workers).
#include "proxy_process.h"

#include <fcntl.h>
#include <poll.h>
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
  if (::pipe2(m_wake, O_CLOEXEC) != 0) {
    const SshError error = fail();
    for (const int fd : {sv[0], sv[1], err[0], err[1]}) ::close(fd);
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
    for (const int fd : {sv[0], err[0], m_wake[0], m_wake[1]}) ::close(fd);
    throw SshError(SshError::Kind::Proxy,
                   QString("Cannot start the ProxyCommand: %1.").arg(QString::fromLocal8Bit(std::strerror(errno))));
  }
  ::setpgid(m_pid, m_pid);  // also from here: whichever runs first wins the race
  m_socket = sv[0];
  m_stderr = err[0];
  m_reader = std::thread([this] { readStderr(); });
}

ProxyProcess::~ProxyProcess() {
  // The reader stops first: a grandchild that left the group could hold stderr open forever.
  const char stop = 1;
  [[maybe_unused]] const ssize_t written = ::write(m_wake[1], &stop, 1);
  m_reader.join();
  ::close(m_wake[0]);
  ::close(m_wake[1]);
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

void ProxyProcess::readStderr() {
  char buf[4096];
  pollfd fds[2] = {{m_stderr, POLLIN, 0}, {m_wake[0], POLLIN, 0}};
  for (;;) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    if (fds[0].revents == 0) continue;
    const ssize_t n = ::read(m_stderr, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {  // EOF: every writer is gone
      const std::lock_guard lock(m_textMutex);
      m_stderrClosed = true;
      m_closed.notify_all();
      return;
    }
    const std::lock_guard lock(m_textMutex);
    m_stderrText.append(buf, n);
    if (m_stderrText.size() > 2 * kStderrKeep) m_stderrText = m_stderrText.right(kStderrKeep);
  }
}

QString ProxyProcess::stderrText() {
  // Called for error messages only: a proxy that failed has usually just exited, and its last
  // words may still be in the pipe.
  std::unique_lock lock(m_textMutex);
  m_closed.wait_for(lock, std::chrono::milliseconds(300), [this] { return m_stderrClosed; });
  return QString::fromLocal8Bit(m_stderrText.right(kStderrKeep)).trimmed();
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
