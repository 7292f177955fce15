// Between fork() and execve() the child may only make async-signal-safe calls (the supervisor
// can have other threads), so everything is prepared before fork(). A close-on-exec pipe tells
// the parent whether execve() succeeded: it reads EOF on success, the errno on failure.
#include "rank_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace traindeck {

namespace {

std::string errnoText(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

// execve() does not search PATH; execvpe() may allocate, which is not allowed after fork().
std::string resolveProgram(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    const std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return name;  // execve() then fails with ENOENT, which is the right message
}

std::vector<char*> pointers(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// Runs in the child; never returns.
[[noreturn]] void execRank(const char* program, char* const* argv, char* const* envp, int nullFd, int logFd,
                           int reportFd, pid_t parent) {
  // A handler the supervisor installed would run the supervisor's code in the child: reset
  // handled signals to their default (ignored ones stay ignored, as with nohup).
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction action {};
    if (::sigaction(sig, nullptr, &action) != 0) continue;
    if (action.sa_handler == SIG_IGN || action.sa_handler == SIG_DFL) continue;
    action = {};
    action.sa_handler = SIG_DFL;
    ::sigaction(sig, &action, nullptr);
  }
  int err = 0;
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) err = errno;
  if (::getppid() != parent) ::_exit(127);  // the supervisor died before prctl took effect
  if (err == 0 &&
      (::dup2(nullFd, STDIN_FILENO) < 0 || ::dup2(logFd, STDOUT_FILENO) < 0 || ::dup2(logFd, STDERR_FILENO) < 0)) {
    err = errno;
  }
  if (err == 0) {
    ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);  // no fd of the supervisor leaks into the rank
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execve(program, argv, envp);
    err = errno;
  }
  while (::write(reportFd, &err, sizeof err) < 0 && errno == EINTR) {
  }
  ::_exit(127);
}

}  // namespace

StartedRank startRank(const RankCommand& command) {
  StartedRank out;
  if (command.argv.empty()) {
    out.error = "no worker program was given";
    return out;
  }
  const std::string program = resolveProgram(command.argv[0]);
  const std::vector<char*> argv = pointers(command.argv);
  const std::vector<char*> envp = pointers(command.environment);

  const int logFd = ::open(command.logPath.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (logFd < 0) {
    out.error = errnoText("could not open " + command.logPath);
    return out;
  }
  struct stat st {};
  if (::fstat(logFd, &st) == 0) out.logOffset = st.st_size;
  const int nullFd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  int report[2] = {-1, -1};
  if (nullFd < 0 || ::pipe2(report, O_CLOEXEC) != 0) {
    out.error = errnoText("could not prepare the rank's stdin");
    ::close(logFd);
    if (nullFd >= 0) ::close(nullFd);
    return out;
  }

  // Signals stay blocked across fork() so that no handler runs in the child before the reset.
  sigset_t all, previous;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &previous);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) execRank(program.c_str(), argv.data(), envp.data(), nullFd, logFd, report[1], parent);
  const int forkErrno = errno;
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  ::close(report[1]);
  ::close(logFd);
  ::close(nullFd);
  if (pid < 0) {
    errno = forkErrno;
    out.error = errnoText("could not fork a rank");
    ::close(report[0]);
    return out;
  }

  int childErrno = 0;
  ssize_t n;
  do {
    n = ::read(report[0], &childErrno, sizeof childErrno);
  } while (n < 0 && errno == EINTR);
  ::close(report[0]);
  if (n == static_cast<ssize_t>(sizeof childErrno)) {
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    out.error = "could not start " + program + ": " + std::strerror(childErrno);
    return out;
  }
  out.pid = pid;
  return out;
}

}  // namespace traindeck
