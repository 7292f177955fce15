// The one table from a run's status to exit codes (run_exit.h).
#include "run_exit.h"

#include <csignal>

namespace traindeck {

int trainerExitCode(RunStatus status) {
  switch (status) {
    case RunStatus::Finished:
    case RunStatus::Stopped:
      return kExitOk;
    case RunStatus::Requeued:
      return kExitRequeued;
    default:
      return kExitFailed;
  }
}

std::string stopCauseWords(int signal, bool underSlurm, bool stopRequestedByUser) {
  if (signal == 0) return "as rank 0 announced";
  if (!underSlurm || stopRequestedByUser || signal == SIGINT) return "on request";
  if (signal == SIGUSR2) return "at Slurm's time limit (SIGUSR2)";
  if (signal == SIGTERM) return "on Slurm's SIGTERM (a preemption, a requeue or a cancel)";
  return "on Slurm's signal " + std::to_string(signal);
}

int jobExitCode(std::optional<RunStatus> status) {
  if (!status || isLive(*status) || *status == RunStatus::Killed) return -1;
  return *status == RunStatus::Failed ? 1 : 0;
}

}  // namespace traindeck
