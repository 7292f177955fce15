// `traindeck-train worker --run-dir DIR [--resume] [--stop-at N]`: one rank of a job, as the
// supervisor starts it (or torchrun, or srun, given RANK, WORLD_SIZE, MASTER_ADDR, ...). Reads
// DIR/config.yaml (paths already resolved by `run`); exits 0 finished, 75 stopped, 1 failed.
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

volatile std::sig_atomic_t g_stopRequested = 0;

void requestStop(int) {
  g_stopRequested = 1;
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
  // Handlers first: a stop may come while the ranks are still meeting.
  std::signal(SIGINT, requestStop);
  std::signal(SIGTERM, requestStop);
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
  options.stopRequested = &g_stopRequested;
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
