// `traindeck-train worker --run-dir DIR [--resume] [--stop-at N]`: one rank of a job, as the
// supervisor starts it (or torchrun, or srun, given RANK, WORLD_SIZE, MASTER_ADDR, ...). Reads
// DIR/config.yaml (paths already resolved by `run`); exits 0 finished, 75 stopped (SIGINT,
// SIGTERM or Slurm's SIGUSR2: a checkpoint first), 1 failed.
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <ostream>

#include "cli_args.h"
#include "commands.h"
#include "launcher/supervisor.h"
#include "trainer/train/train_job.h"

namespace traindeck {

namespace {

volatile std::sig_atomic_t g_workerStopRequested = 0;

// The first signal is the cause (Slurm's USR2 reaches a rank before its supervisor's TERM).
void requestWorkerStop(int signal) {
  if (g_workerStopRequested == 0) g_workerStopRequested = signal;
}

// The SLURM_RESTART_COUNT of a requeued Slurm job (0: none, or not under Slurm).
int slurmRestartCount() {
  const char* text = std::getenv("SLURM_RESTART_COUNT");
  if (!text || !*text) return 0;
  char* end = nullptr;
  const long count = std::strtol(text, &end, 10);
  return *end == '\0' && count > 0 && count < 1000000 ? static_cast<int>(count) : 0;
}

}  // namespace

int commandWorker(const std::vector<std::string>& args, const CliContext& context) {
  const ParsedArgs parsed = parseArgs(args, {{"--run-dir", "--stop-at"}, {"--resume"}, {}});
  const auto runDir = parsed.option("--run-dir");
  if (!parsed.error.empty() || !runDir || !parsed.positionals.empty()) {
    context.err << "traindeck-train worker: "
                << (parsed.error.empty() ? "usage: traindeck-train worker --run-dir DIR [--resume] [--stop-at N]"
                                         : parsed.error)
                << "\n";
    return kExitUsage;
  }
  // Handlers first: a stop may come while the ranks are still meeting. SIGUSR2 is Slurm's
  // warning before the time limit, sent to every process of the step (USR1 is NCCL's).
  for (const int signal : {SIGINT, SIGTERM, SIGUSR2}) std::signal(signal, requestWorkerStop);
  TrainOptions options;
  options.paths.root = std::filesystem::absolute(*runDir).lexically_normal().string();
  const auto loaded = loadConfigArgument(options.paths.config(), context);
  if (!loaded) return kExitFailed;
  if (!loaded->problems.empty()) {
    for (const Diagnostic& d : loaded->problems) context.err << "error: " << d.format(loaded->source) << "\n";
    return kExitFailed;
  }
  try {
    options.dist = distEnvFromProcess();
  } catch (const std::exception& e) {
    context.err << "error: traindeck-train worker: " << e.what() << "\n";
    return kExitFailed;
  }
  options.info.id = std::filesystem::path(options.paths.root).filename().string();
  options.ownsRunInfo = false;
  options.echoLog = false;  // stdout and stderr already go to this rank's log
  options.resume = parsed.flag("--resume");
  options.stopRequested = &g_workerStopRequested;
  options.slurmRestart = slurmRestartCount();
  options.underSlurm = std::getenv("SLURM_JOB_ID") != nullptr;
  if (const auto stopAt = parsed.option("--stop-at")) options.stopAtStep = std::atoll(stopAt->c_str());
  if (const char* step = std::getenv("TRAINDECK_CUDA_SYNC_CHECK_STEP")) options.syncCheckStep = std::atoll(step);
  options.processNotes = setUpTrainingProcess(loaded->config, options.dist);
  const TrainResult result = trainJob(loaded->config, options);
  switch (result.status) {
    case RunStatus::Finished:
      return kExitOk;
    case RunStatus::Stopped:
      return kWorkerStopped;
    default:
      return kExitFailed;
  }
}

}  // namespace traindeck
