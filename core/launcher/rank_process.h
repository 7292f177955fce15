// Starts one rank: fork, then in the child stdin from /dev/null, stdout and stderr appended to
// the rank's log, PR_SET_PDEATHSIG so that it dies with the supervisor, and execve().
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace traindeck {

struct RankCommand {
  std::vector<std::string> argv;         // program first; a name without '/' is looked up in PATH
  std::vector<std::string> environment;  // "NAME=value", the rank's whole environment
  std::string logPath;                   // logs/rank-<r>.log, created if missing, appended to
};

struct StartedRank {
  pid_t pid = -1;              // -1 when it could not be started; then `error` says why
  std::int64_t logOffset = 0;  // the log's size before the rank started: this run's part begins here
  std::string error;
};

// Returns once the rank's program runs (or has failed to start: no process is left then).
StartedRank startRank(const RankCommand& command);

}  // namespace traindeck
