// Exit reasons end up in run.json and on the terminal, so they are one sentence that names the
// rank, how it ended, the step, and the log line that says why.
#include "rank_exit.h"

#include <signal.h>
#include <sys/wait.h>

#include "signal_names.h"
#include "supervisor.h"

namespace traindeck {

RankOutcome classifyRankExit(int waitStatus, bool stopRequested) {
  if (WIFEXITED(waitStatus)) {
    const int code = WEXITSTATUS(waitStatus);
    if (code == 0) return RankOutcome::Finished;
    if (code == kWorkerStopped) return RankOutcome::Stopped;
    return RankOutcome::Failed;
  }
  if (WIFSIGNALED(waitStatus) && stopRequested) {
    const int sig = WTERMSIG(waitStatus);
    if (sig == SIGTERM || sig == SIGINT || sig == SIGUSR2) return RankOutcome::Stopped;
  }
  return RankOutcome::Failed;
}

std::string describeRankFailure(int rank, int waitStatus, const std::string& where, const std::string& errorLine,
                                const std::string& logName) {
  std::string text = "rank " + std::to_string(rank);
  if (WIFSIGNALED(waitStatus)) {
    text += " was killed by " + signalName(WTERMSIG(waitStatus));
  } else if (WIFEXITED(waitStatus)) {
    text += " exited with code " + std::to_string(WEXITSTATUS(waitStatus));
  } else {
    text += " ended with wait status " + std::to_string(waitStatus);
  }
  text += " " + where;
  if (!errorLine.empty()) return text + ": " + errorLine;
  if (WIFEXITED(waitStatus)) return text + "; see " + logName;
  return text;
}

}  // namespace traindeck
