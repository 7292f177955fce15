// How a run's end reads as a number, in one table: the exit codes of `traindeck-train run` (the
// Slurm batch script requeues on kExitRequeued) and the code a Job's finished() reports for a
// run.json status. Both sides (the trainer, the app and the batch script it fills in) use these.
#pragma once

#include <optional>
#include <string>

#include "run_directory.h"

namespace traindeck {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;  // the config is invalid, or the work failed
inline constexpr int kExitUsage = 2;   // the command line is wrong
// run: Slurm's time limit or a preemption stopped it, every rank checkpointed; the batch script
// requeues the job (`scontrol requeue`) and the next attempt runs with --resume.
inline constexpr int kExitRequeued = 3;

// What `traindeck-train run` exits with for the status it wrote.
int trainerExitCode(RunStatus status);

// Why a rank stopped, in the words its log and the run's reason say: "on request" (the user: a
// signal outside Slurm, or with the stop-requested marker), "at Slurm's time limit (SIGUSR2)",
// "on Slurm's SIGTERM (a preemption, a requeue or a cancel)"; signal 0: "as rank 0 announced".
std::string stopCauseWords(int signal, bool underSlurm, bool stopRequestedByUser);

// What a Job's finished() says for a run.json status: 0 finished or stopped, 1 failed, -1 for
// no verdict (none readable, still live, or killed).
int jobExitCode(std::optional<RunStatus> status);

}  // namespace traindeck
