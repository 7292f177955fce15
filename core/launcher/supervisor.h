// The process supervisor behind `traindeck-train run`: starts one node's ranks with torchrun's
// environment variables, follows their logs and metrics.jsonl, keeps run.json up to date, and
// tears every rank down as soon as one fails. Linux only; no Torch, no Qt.
#pragma once

#include <csignal>
#include <string>
#include <utility>
#include <vector>

#include "runlog/run_directory.h"

namespace traindeck {

struct LaunchSpec {
  std::vector<std::string> workerArgv;  // each rank's argv, program path first; the same for every rank
  int nprocPerNode = 1;
  int nnodes = 1;
  int nodeRank = 0;
  std::string masterAddr = "127.0.0.1";
  int masterPort = 0;         // 0: pick a free TCP port on masterAddr (only allowed when nnodes == 1)
  RunPaths paths;             // run directory: logs/rank-<r>.log, run.json, metrics.jsonl
  RunInfo info;               // the supervisor fills status, pids, exitReason, step and writes run.json
  double graceSeconds = 3.0;  // after SIGTERM to the ranks, SIGKILL the ones still alive
  bool echoLog = true;        // copy new lines of the first local rank's log to stderr as they appear
  // Set by the caller's signal handler (SIGINT, SIGTERM, SIGUSR2) to the signal's number; any
  // non-zero value asks every rank to checkpoint and stop.
  const volatile std::sig_atomic_t* stopRequested = nullptr;
  // The run is a Slurm job's step (SLURM_JOB_ID is set): a stop by a signal other than SIGINT
  // that the user did not ask for (no paths.stopRequest() marker) is Slurm's time limit or a
  // preemption, and ends Requeued instead of Stopped.
  bool underSlurm = false;
  // How many more times the job's batch script requeues itself at the time limit
  // (TRAINDECK_REQUEUES_LEFT); -1: not known. At 0, the time limit's SIGUSR2 ends the run Stopped:
  // nothing starts it again. A preemption (SIGTERM) is Slurm's own requeue and stays Requeued.
  int requeuesLeft = -1;
  // One of several runs packed in one Slurm job (TRAINDECK_PACKED): no signal reaches its step
  // alone, so its markers do. paths.stopRequest() asks every rank to checkpoint and stop (the
  // user's stop), paths.killRequest() ends them as scancel's SIGTERM would (the run is killed
  // from TrainDeck); both are looked for about once a second, and a
  // marker there at the start is this attempt's (its pack starts no run whose marker was there).
  bool watchMarkers = false;
  std::vector<std::pair<std::string, std::string>> extraEnv;  // added to every rank's environment
};

struct LaunchResult {
  RunStatus status = RunStatus::Failed;  // Finished, Stopped, Requeued or Failed
  std::string reason;                    // one sentence
};

// Exit codes of a worker: 0 finished all steps, kWorkerStopped (75) stopped on request after saving
// a checkpoint, anything else failed.
inline constexpr int kWorkerStopped = 75;

// Runs the ranks of this node to the end and returns how the run ended; never throws. It first
// removes a stop-request marker left from an earlier attempt (unless a stop is already asked), so
// that each stop is judged by what the user asked this time. Call it from the thread that stays
// alive for the whole run (the main thread): the ranks get PR_SET_PDEATHSIG, which fires when the
// thread that forked them exits.
LaunchResult superviseRanks(const LaunchSpec& spec);

// Binds a TCP socket to port 0 on `address`, reads the port the kernel chose, closes it; 0 on
// failure. Another process may take the port before the ranks bind it (torchrun has the same race).
int pickFreePort(const std::string& address);

}  // namespace traindeck
