// What a rank's wait status means for the run (finished, stopped, failed), and the sentence
// that explains a failure: "rank 1 was killed by SIGKILL at step 37".
#pragma once

#include <string>

namespace traindeck {

enum class RankOutcome { Finished, Stopped, Failed };

// Exit 0: finished; exit kWorkerStopped: stopped. After a stop request, death by SIGTERM, SIGINT
// or SIGUSR2 (Slurm's, sent to every process of the step) is stopped too: a rank that had not
// installed its handler yet got the stop it was sent.
RankOutcome classifyRankExit(int waitStatus, bool stopRequested);

// `where`: "at step 12" or "before the first step". `errorLine`: the log's last line about an
// error, or empty; `logName`: "logs/rank-0.log", named when there is no error line to quote.
std::string describeRankFailure(int rank, int waitStatus, const std::string& where, const std::string& errorLine,
                                const std::string& logName);

}  // namespace traindeck
