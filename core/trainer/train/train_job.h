// Training one rank of a job in this process: the whole loop behind `traindeck-train worker`
// (and a one-rank job without a supervisor, as tests use it). Torch stays behind this header,
// so the CLI compiles without it.
#pragma once

#include <csignal>
#include <cstdint>
#include <string>
#include <vector>

#include "config/run_config.h"
#include "config/run_steps.h"  // tokensPerStep, totalSteps
#include "runlog/run_directory.h"
#include "trainer/dist/dist_env.h"

namespace traindeck {

struct TrainOptions {
  RunPaths paths;             // made if missing; config.yaml is written there
  RunInfo info;               // kept up to date in run.json when ownsRunInfo
  bool ownsRunInfo = true;    // false under a supervisor, which owns run.json
  DistEnv dist;               // this process's rank in the job (one rank by default)
  bool resume = false;        // continue from the newest complete checkpoint
  bool progressLine = false;  // a \r progress line on stderr
  bool echoLog = true;        // log lines on stderr too, not only logs/rank-<r>.log
  // Set from a signal handler: finish the step, save a checkpoint, stop.
  const volatile std::sig_atomic_t* stopRequested = nullptr;
  // Stop the same way once this many steps are done (0: never): `run --stop-at N`.
  std::int64_t stopAtStep = 0;
  // SLURM_RESTART_COUNT when Slurm requeued the job (0: it did not): the resume says so in
  // metrics.jsonl, "requeued by Slurm (restart N): resumed from step S".
  int slurmRestart = 0;
  bool underSlurm = false;  // in a Slurm job: a signal without the stop-requested marker is Slurm's
  // What setUpTrainingProcess did, for the log's first lines.
  std::vector<std::string> processNotes;
  // On CUDA, this step (1-based; 0: none) runs with CUDA's sync debug mode set to error, so any
  // operation in it that waits for the device fails the run naming it (tests/gpu/check_cuda.sh).
  std::int64_t syncCheckStep = 0;
};

struct TrainResult {
  RunStatus status = RunStatus::Failed;
  std::string reason;      // one sentence
  std::int64_t steps = 0;  // completed optimizer steps
  double lastLoss = 0;
};

// `config` has its paths expanded. Never throws: failures come back as status failed.
TrainResult trainJob(const RunConfig& config, const TrainOptions& options);

// Process-wide settings for a rank that trains here, made once before trainJob (by `worker`):
// the heap keeps freed blocks; a CPU rank takes its share of the cores' threads and, beside other
// ranks on this node, its own block of cores. Returns what it did, for the log.
std::vector<std::string> setUpTrainingProcess(const RunConfig& config, const DistEnv& dist);


}  // namespace traindeck
